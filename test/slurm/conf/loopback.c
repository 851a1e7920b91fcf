/*
 * loopback.c - LD_PRELOAD library for slurmdbd only.
 *
 * slurmdbd 22.05 listens on the wildcard address whatever slurmdbd.conf says
 * (DbdAddr names the host to connect to, it is not a bind address).  This
 * library turns a bind() to 0.0.0.0 or :: into a bind() to 127.0.0.1 or ::1,
 * so the test cluster's slurmdbd is reachable from this machine only.
 *
 *   cc -shared -fPIC -O2 -o loopback.so loopback.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

typedef int (*bind_fn) (int, const struct sockaddr *, socklen_t);

int
bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	static bind_fn next;

	if (next == NULL)
		next = (bind_fn) dlsym(RTLD_NEXT, "bind");
	if (addr != NULL && addr->sa_family == AF_INET &&
		len >= (socklen_t) sizeof(struct sockaddr_in))
	{
		struct sockaddr_in in;

		memcpy(&in, addr, sizeof(in));
		if (in.sin_addr.s_addr == htonl(INADDR_ANY))
		{
			in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			return next(fd, (const struct sockaddr *) &in, sizeof(in));
		}
	}
	else if (addr != NULL && addr->sa_family == AF_INET6 &&
			 len >= (socklen_t) sizeof(struct sockaddr_in6))
	{
		struct sockaddr_in6 in6;

		memcpy(&in6, addr, sizeof(in6));
		if (memcmp(&in6.sin6_addr, &in6addr_any, sizeof(in6.sin6_addr)) == 0)
		{
			in6.sin6_addr = in6addr_loopback;
			return next(fd, (const struct sockaddr *) &in6, sizeof(in6));
		}
	}
	return next(fd, addr, len);
}
