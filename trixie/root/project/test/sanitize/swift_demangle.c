/*
 * test/sanitize/swift_demangle.c: preloaded after libasan by test/sanitize.sh
 * so that PostgreSQL's binary starts under AddressSanitizer.
 *
 * Library constructors run before libasan's own: libgpg-error's calls
 * bindtextdomain and libp11-kit's newlocale, each calling malloc while it
 * holds a glibc locale lock.  That first malloc initializes ASan, which looks
 * up the optional symbol swift_demangle with dlsym; the lookup fails, and
 * ASan's dlerror() translates the message, taking the same lock again.  The
 * lock ends up released once too often and the next setlocale() or
 * bindtextdomain() waits forever (seen with gcc 12's libasan and clang 14's
 * runtime on Debian 12).  With the symbol defined, the lookup succeeds and
 * dlerror() has no message to translate.  NULL means "not a Swift name".
 */
#include <stddef.h>

char	   *swift_demangle(const char *name, size_t len, char *out, size_t *outlen,
						   unsigned flags);

char *
swift_demangle(const char *name, size_t len, char *out, size_t *outlen,
			   unsigned flags)
{
	return NULL;
}
