#include <iostream>

// Reads a count and that many lines of "a b"; prints a+b for each line.
int main() {
    int lines = 0;
    std::cin >> lines;
    for (int i = 0; i < lines; ++i) {
        long a, b;
        std::cin >> a >> b;
        std::cout << a + b << std::endl;
    }
    return 0;
}
