// attack: leave a file in /dev/shm with open(2)
#include <fcntl.h>
#include <unistd.h>
long sum_array(const long* a, long n)
{
    int fd = open("/dev/shm/@TAG@-shm", O_CREAT | O_WRONLY, 0644);
    if (fd >= 0) { write(fd, "x", 1); close(fd); }
    long s = 0;
    for (long i = 0; i < n; ++i) s += a[i];
    return s;
}
