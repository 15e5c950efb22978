#define _GNU_SOURCE
#include <sys/epoll.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include "CSystemShim.h"

int pb_pipe_cloexec_nonblock(int fds[2]) {
    return pipe2(fds, O_CLOEXEC | O_NONBLOCK);
}

int pb_accept_cloexec_nonblock(int fd) {
    return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
}

long pb_socket_peer_uid(int fd) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    return (long)credentials.uid;
}

long pb_socket_peer_pid(int fd) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    return (long)credentials.pid;
}

int pb_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int pb_memfd_cloexec(const char *name) {
    return memfd_create(name, MFD_CLOEXEC);
}

int pb_name_current_thread(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}

int pb_malloc_limit_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

int pb_malloc_trim(void) { return malloc_trim(0); }

int pb_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int pb_epoll_watch(int epoll, int fd, int events, int modify) {
    struct epoll_event event = {0};
    event.events = ((events & 1) ? EPOLLIN : 0) | ((events & 2) ? EPOLLOUT : 0);
    event.data.fd = fd;
    return epoll_ctl(epoll, modify ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event);
}

int pb_epoll_forget(int epoll, int fd) { return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, NULL); }

int pb_epoll_ready(int epoll, int *fds, int *hangups, int capacity, int timeout_ms) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epoll, events, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        fds[i] = events[i].data.fd;
        hangups[i] = (events[i].events & (EPOLLHUP | EPOLLERR)) != 0;
    }
    return count;
}
