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
/// The process id of the socket's peer at connect time (SO_PEERCRED), or -1.
long pb_socket_peer_pid(int fd);

/// memfd_create(name, MFD_CLOEXEC): an anonymous, seekable file in memory; returns the fd or -1.
int pb_memfd_cloexec(const char *name);

/// pthread_setname_np(pthread_self(), name): names the calling thread (at most 15 bytes); returns 0 or an errno.
int pb_name_current_thread(const char *name);

/// mallopt(M_ARENA_MAX, count): at most `count` glibc malloc arenas; returns 1 on success, 0 if refused.
int pb_malloc_limit_arenas(int count);
/// malloc_trim(0): gives the free memory of glibc's heaps back to the system; returns 1 if some was, else 0.
int pb_malloc_trim(void);

// epoll: several descriptors folded into one that an owner polls (SystemSupport's EventPoll). struct epoll_event
// is packed on x86-64, so Swift reaches it only through these.

/// A new close-on-exec epoll instance, or -1 (errno set).
int pb_epoll_create(void);
/// Adds (or, with `modify`, changes) `fd`, waiting for input (`events` bit 1) and room to write (bit 2); 0 or -1.
int pb_epoll_watch(int epoll, int fd, int events, int modify);
/// Removes `fd`; 0 or -1.
int pb_epoll_forget(int epoll, int fd);
/// Waits up to `timeout_ms` for ready descriptors: writes up to `capacity` of them into `fds` (with a nonzero
/// `hangups[i]` when that one hung up or failed) and returns how many, or -1 (errno set).
int pb_epoll_ready(int epoll, int *fds, int *hangups, int capacity, int timeout_ms);

#endif
