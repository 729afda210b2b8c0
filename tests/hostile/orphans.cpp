// attack: double-fork and setsid() so that children outlive the job
#include <unistd.h>
long sum_array(const long* a, long n)
{
    static bool started = false;
    if (!started) {
        started = true;
        if (fork() == 0) {
            setsid();
            if (fork() == 0) {
                execl("/bin/sleep", "sleep", "@SLEEP@", (char*)nullptr);
                _exit(0);
            }
            _exit(0);
        }
    }
    long s = 0;
    for (long i = 0; i < n; ++i) s += a[i];
    return s;
}
