// The peer of a Unix socket, from the kernel's sock_diag netlink interface (Linux 3.3+): how X11Backend tells
// that a process holds a connection to this X server. See pb_unix_peer_name in CX11.h.
#define _GNU_SOURCE
#include "CX11.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

// Asks for one socket by inode with the attributes in `show`; fills `reply` with the answer. Returns the number
// of bytes received, or -1.
static int pb_unix_diag(int netlink, unsigned int inode, unsigned int show, char *reply, int size) {
    struct {
        struct nlmsghdr header;
        struct unix_diag_req request;
    } message;
    memset(&message, 0, sizeof message);
    message.header.nlmsg_len = sizeof message;
    message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    message.header.nlmsg_flags = NLM_F_REQUEST;
    message.request.sdiag_family = AF_UNIX;
    message.request.udiag_states = ~0U;
    message.request.udiag_ino = inode;
    message.request.udiag_show = show;
    message.request.udiag_cookie[0] = ~0U;  // "no cookie": look the socket up by its inode alone
    message.request.udiag_cookie[1] = ~0U;
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
    if (sendto(netlink, &message, sizeof message, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0) return -1;
    ssize_t received;
    do {
        received = recv(netlink, reply, (size_t)size, 0);
    } while (received < 0 && errno == EINTR);
    return (int)received;
}

// The payload of attribute `type` in a sock_diag reply, and its length; NULL when absent or on an error reply.
static const char *pb_unix_diag_attribute(const char *reply, int length, unsigned short type, int *found) {
    const struct nlmsghdr *header = (const struct nlmsghdr *)reply;
    if (length < (int)sizeof *header || !NLMSG_OK(header, (unsigned int)length)) return NULL;
    if (header->nlmsg_type != SOCK_DIAG_BY_FAMILY) return NULL;  // NLMSG_ERROR: no such socket
    const struct unix_diag_msg *diag = NLMSG_DATA(header);
    int remaining = (int)header->nlmsg_len - (int)NLMSG_LENGTH(sizeof *diag);
    const struct nlattr *attribute = (const struct nlattr *)(diag + 1);
    while (remaining >= (int)sizeof *attribute && attribute->nla_len >= sizeof *attribute
           && (int)attribute->nla_len <= remaining) {
        if ((attribute->nla_type & NLA_TYPE_MASK) == type) {
            *found = attribute->nla_len - NLA_HDRLEN;
            return (const char *)attribute + NLA_HDRLEN;
        }
        int step = NLA_ALIGN(attribute->nla_len);
        remaining -= step;
        attribute = (const struct nlattr *)((const char *)attribute + step);
    }
    return NULL;
}

int pb_unix_peer_name(unsigned int inode, char *name, int size) {
    if (size < 2) return -1;
    int netlink = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (netlink < 0) return -1;
    // The kernel answers at once; the timeout only bounds a surprise.
    struct timeval timeout = { .tv_sec = 1, .tv_usec = 0 };
    setsockopt(netlink, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    char reply[8192];
    int result = -1;
    int length = pb_unix_diag(netlink, inode, UDIAG_SHOW_PEER, reply, sizeof reply);
    int found = 0;
    const char *peer = length > 0 ? pb_unix_diag_attribute(reply, length, UNIX_DIAG_PEER, &found) : NULL;
    if (peer != NULL && found >= 4) {
        unsigned int peerInode;
        memcpy(&peerInode, peer, sizeof peerInode);
        length = pb_unix_diag(netlink, peerInode, UDIAG_SHOW_NAME, reply, sizeof reply);
        const char *bound = length > 0 ? pb_unix_diag_attribute(reply, length, UNIX_DIAG_NAME, &found) : NULL;
        if (bound != NULL && found > 0) {
            int count = found < size - 1 ? found : size - 1;
            memcpy(name, bound, (size_t)count);
            if (name[0] == '\0') name[0] = '@';  // an abstract name, as ss(8) shows it
            name[count] = '\0';
            result = count;
        }
    }
    close(netlink);
    return result;
}
