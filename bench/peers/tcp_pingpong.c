/* Raw TCP between two hosts, the floor under any runtime that uses it:
 *   tcp_pingpong -s PORT          the server: serves one client, then exits
 *   tcp_pingpong HOST PORT        the client: prints two lines,
 *                                 "latency 8 US" (half a round trip of 8
 *                                 bytes, mean of 20,000 after 2,000 warm-up)
 *                                 "bandwidth 1048576 MBPS" (200 messages of
 *                                 1 MiB one way, then a 1-byte answer)
 * Both ends poll (a non-blocking recv in a loop), as HPC runtimes' progress
 * does, with TCP_NODELAY: the polling ping-pong floor of issue 62. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { kPingPong = 1, kStream = 2 };
struct Command {
    uint64_t op, size, count;
};

static int recv_all(int fd, void *buf, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = recv(fd, (char *)buf + got, n - got, MSG_DONTWAIT);
        if (r > 0)
            got += (size_t)r;
        else if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            return -1;
    }
    return 0;
}

static int send_all(int fd, const void *buf, size_t n) {
    size_t sent = 0;
    while (sent < n) {
        ssize_t r = send(fd, (const char *)buf + sent, n - sent, MSG_NOSIGNAL);
        if (r > 0)
            sent += (size_t)r;
        else if (r < 0 && errno != EAGAIN && errno != EINTR)
            return -1;
    }
    return 0;
}

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int serve(int port) {
    int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_ANY)};
    if (bind(ls, (struct sockaddr *)&a, sizeof a) != 0 || listen(ls, 1) != 0)
        return perror("tcp_pingpong: bind/listen"), 1;
    int fd = accept(ls, NULL, NULL);
    if (fd < 0) return perror("tcp_pingpong: accept"), 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char *buf = malloc(1 << 20);
    struct Command c;
    while (buf && recv_all(fd, &c, sizeof c) == 0 && c.size <= (1u << 20)) {
        if (c.op == kPingPong) {
            for (uint64_t i = 0; i < c.count; i++)
                if (recv_all(fd, buf, c.size) || send_all(fd, buf, c.size)) return 1;
        } else if (c.op == kStream) {
            for (uint64_t i = 0; i < c.count; i++)
                if (recv_all(fd, buf, c.size)) return 1;
            if (send_all(fd, buf, 1)) return 1;
        } else {
            break;
        }
    }
    free(buf);
    close(fd);
    close(ls);
    return 0;
}

static int run(int fd, uint64_t op, uint64_t size, uint64_t count, char *buf) {
    struct Command c = {op, size, count};
    if (send_all(fd, &c, sizeof c)) return -1;
    for (uint64_t i = 0; i < count; i++) {
        if (op == kPingPong && (send_all(fd, buf, size) || recv_all(fd, buf, size))) return -1;
        if (op == kStream && send_all(fd, buf, size)) return -1;
    }
    return op == kStream ? recv_all(fd, buf, 1) : 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "-s")) return serve(atoi(argv[2]));
    if (argc != 3) return fprintf(stderr, "usage: tcp_pingpong -s PORT | tcp_pingpong HOST PORT\n"), 2;
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[2]))};
    if (inet_pton(AF_INET, argv[1], &a.sin_addr) != 1) return fprintf(stderr, "tcp_pingpong: bad host\n"), 2;
    int tries = 0;
    while (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {  // the server may still be starting
        if (++tries == 100) return perror("tcp_pingpong: connect"), 1;
        usleep(50000);
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char *buf = calloc(1, 1 << 20);
    if (!buf || run(fd, kPingPong, 8, 2000, buf)) return 1;
    double t0 = now_us();
    if (run(fd, kPingPong, 8, 20000, buf)) return 1;
    printf("latency 8 %.2f\n", (now_us() - t0) / 20000 / 2);
    if (run(fd, kStream, 1 << 20, 20, buf)) return 1;
    t0 = now_us();
    if (run(fd, kStream, 1 << 20, 200, buf)) return 1;
    printf("bandwidth 1048576 %.0f\n", 200.0 * (1 << 20) / (now_us() - t0));
    struct Command quit = {0, 0, 0};
    send_all(fd, &quit, sizeof quit);
    free(buf);
    close(fd);
    return 0;
}
