#ifndef PASTEBOARD_CSYSTEMSHIM_H
#define PASTEBOARD_CSYSTEMSHIM_H

// GNU extensions that Swift's Glibc module does not expose (it is built without _GNU_SOURCE).

/// pipe2(fds, O_CLOEXEC | O_NONBLOCK); returns 0 or -1 with errno set.
int pb_pipe_cloexec_nonblock(int fds[2]);

/// pipe2(fds, O_CLOEXEC): blocking ends; returns 0 or -1 with errno set.
int pb_pipe_cloexec(int fds[2]);

/// accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK); returns the new fd or -1.
int pb_accept_cloexec_nonblock(int fd);

/// The uid of the process at the other end of a Unix socket (SO_PEERCRED), or -1.
long pb_socket_peer_uid(int fd);

/// memfd_create(name, MFD_CLOEXEC): an anonymous, seekable file in memory; returns the fd or -1.
int pb_memfd_cloexec(const char *name);

/// pthread_setname_np(pthread_self(), name): names the calling thread (at most 15 bytes); returns 0 or an errno.
int pb_name_current_thread(const char *name);

/// mallopt(M_ARENA_MAX, count): at most `count` glibc malloc arenas; returns 1 on success, 0 if refused.
int pb_malloc_limit_arenas(int count);

#endif
