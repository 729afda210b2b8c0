int freq(const int *a, int n) {
    std::unordered_map<int, int> cnt;
    for (int i = 0; i < n; ++i) cnt[a[i]]++;
    return cnt.count(7) ? cnt[7] : 0;
}
