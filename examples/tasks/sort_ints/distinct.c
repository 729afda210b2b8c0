/* Number of distinct values; sorts the array in place first (selection sort). */
int count_distinct(int *a, int n)
{
    for (int i = 0; i < n; i++) {
        int m = i;
        for (int j = i + 1; j < n; j++)
            if (a[j] < a[m])
                m = j;
        int t = a[i];
        a[i] = a[m];
        a[m] = t;
    }
    int distinct = 0;
    for (int i = 0; i < n; i++)
        if (i == 0 || a[i] != a[i - 1])
            distinct++;
    return distinct;
}
