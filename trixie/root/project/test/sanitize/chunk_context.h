/*
 * test/sanitize/chunk_context.h: force-included (gcc -include) into every
 * extension/ C file of the sanitizer build (test/sanitize.sh), never into the
 * real one.
 *
 * palloc carves small chunks out of 8 kB blocks it mallocs, so AddressSanitizer
 * sees a block's bounds, not a chunk's: an overrun of a small chunk stays
 * inside the block and goes unseen.  Here every allocation the extension's
 * code asks for comes from a "chunk context" (chunk_context.c): each chunk is
 * its own malloc, with exactly the size asked for, so ASan reports a read or a
 * write one byte past it, and a use after pfree or after the context's reset.
 *
 * The chunk context is a child of the context the code allocates in, so its
 * memory lives exactly as long; pfree, repalloc and GetMemoryChunkContext
 * work on its chunks as on any other.  Memory PostgreSQL's own functions
 * allocate (psprintf, construct_array, StringInfo...) stays in AllocSets.
 */
#ifndef FS_CHUNK_CONTEXT_H
#define FS_CHUNK_CONTEXT_H
#include "postgres.h"

extern void *fs_chunk_alloc(MemoryContext parent, Size size, int flags);
extern char *fs_chunk_strdup(MemoryContext parent, const char *s, Size maxlen);

#define palloc(size) fs_chunk_alloc(CurrentMemoryContext, (size), 0)
#define palloc0(size) fs_chunk_alloc(CurrentMemoryContext, (size), MCXT_ALLOC_ZERO)
#define palloc_extended(size, flags) fs_chunk_alloc(CurrentMemoryContext, (size), (flags))
#define MemoryContextAlloc(cxt, size) fs_chunk_alloc((cxt), (size), 0)
#define MemoryContextAllocZero(cxt, size) fs_chunk_alloc((cxt), (size), MCXT_ALLOC_ZERO)
#define MemoryContextAllocZeroAligned(cxt, size) fs_chunk_alloc((cxt), (size), MCXT_ALLOC_ZERO)
#define MemoryContextAllocExtended(cxt, size, flags) fs_chunk_alloc((cxt), (size), (flags))
#define MemoryContextAllocHuge(cxt, size) fs_chunk_alloc((cxt), (size), MCXT_ALLOC_HUGE)
#define pstrdup(s) fs_chunk_strdup(CurrentMemoryContext, (s), SIZE_MAX)
#define pnstrdup(s, len) fs_chunk_strdup(CurrentMemoryContext, (s), (len))
#define MemoryContextStrdup(cxt, s) fs_chunk_strdup((cxt), (s), SIZE_MAX)
#endif
