// attack: open a TCP connection to a port on this machine
#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>
long sum_array(const long* a, long n)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s >= 0) {
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(@PORT@);
        addr.sin_addr.s_addr = htonl(0x7f000001);
        if (connect(s, (sockaddr*)&addr, sizeof addr) == 0) send(s, "@TAG@", 5, 0);
        close(s);
    }
    long sum = 0;
    for (long i = 0; i < n; ++i) sum += a[i];
    return sum;
}
