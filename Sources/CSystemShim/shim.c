#define _GNU_SOURCE
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
