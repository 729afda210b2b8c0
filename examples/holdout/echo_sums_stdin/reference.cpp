#include <iostream>

// Unsynced streams, untied cin, and '\n' instead of a flush per line.
int main() {
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    int lines = 0;
    std::cin >> lines;
    for (int i = 0; i < lines; ++i) {
        long a, b;
        std::cin >> a >> b;
        std::cout << a + b << '\n';
    }
    return 0;
}
