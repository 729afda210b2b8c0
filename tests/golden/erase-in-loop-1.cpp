std::string without_digits(std::string text) {
    text.erase(std::remove_if(text.begin(), text.end(),
                              [&](char x) { return x >= '0' && x <= '9'; }),
               text.end());
    return text;
}
