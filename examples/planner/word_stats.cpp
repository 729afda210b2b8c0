// Slow: counts words in a std::map although nothing needs them sorted, rebuilds the report
// string with `report = report + ...` (quadratic copying), flushes with std::endl on every
// line, and reads with iostreams that are still synchronized with C stdio.
#include <iostream>
#include <map>
#include <string>

std::string word_stats(int n) {
    std::map<std::string, int> counts;
    std::string word;
    for (int i = 0; i < n; ++i) {
        std::cin >> word;
        counts[word]++;
    }
    std::string report;
    for (int i = 0; i < n; ++i) {
        report = report + "word " + std::to_string(i) + ";";
        std::cout << i << std::endl;
    }
    if (counts.count("the")) {
        report += "!";
    }
    return report;
}
