bool is_anagram(std::string a, std::string b) {
    if (a.size() != b.size())
        return false;
    std::size_t counts[256] = {};
    for (unsigned char byte : a)
        ++counts[byte];
    for (unsigned char byte : b) {
        if (counts[byte] == 0)
            return false;
        --counts[byte];
    }
    return true;
}
