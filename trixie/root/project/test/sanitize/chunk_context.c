/*
 * test/sanitize/chunk_context.c: a memory context type in which every chunk
 * is its own malloc of exactly the requested size, for the AddressSanitizer
 * build only (see chunk_context.h; test/sanitize.sh copies this file into the
 * sanitizer build, the real build never sees it).
 *
 * A chunk is a ChunkHeader followed by the caller's bytes; the header's last
 * field is the owning context, where PostgreSQL 15's GetMemoryChunkContext
 * reads it (the word before the pointer), so pfree and repalloc dispatch here.
 * The context keeps its chunks on a list to free them at reset and delete.
 * free() hands a chunk to ASan's quarantine, which reports later accesses.
 */
#include "postgres.h"

#include <stdint.h>

#include "nodes/memnodes.h"
#include "utils/memutils.h"

#include "chunk_context.h"

/* this file allocates with the real functions */
#undef palloc
#undef palloc0
#undef palloc_extended
#undef MemoryContextAlloc
#undef MemoryContextAllocZero
#undef MemoryContextAllocZeroAligned
#undef MemoryContextAllocExtended
#undef MemoryContextAllocHuge
#undef pstrdup
#undef pnstrdup
#undef MemoryContextStrdup

typedef struct ChunkHeader
{
	struct ChunkHeader *prev;
	struct ChunkHeader *next;
	Size		size;
	MemoryContext context;		/* last: read at pointer - sizeof(void *) */
} ChunkHeader;

StaticAssertDecl(sizeof(ChunkHeader) % MAXIMUM_ALIGNOF == 0,
				 "chunks must stay MAXALIGNed");
StaticAssertDecl(offsetof(ChunkHeader, context) + sizeof(void *) == sizeof(ChunkHeader),
				 "the context pointer must precede the chunk");

typedef struct ChunkContext
{
	MemoryContextData header;
	ChunkHeader *chunks;
	Size		nchunks;
} ChunkContext;

#define HDR(pointer) ((ChunkHeader *) ((char *) (pointer) - sizeof(ChunkHeader)))
#define DATA(chunk) ((void *) ((char *) (chunk) + sizeof(ChunkHeader)))

static void *chunk_alloc(MemoryContext context, Size size);
static void chunk_free(MemoryContext context, void *pointer);
static void *chunk_realloc(MemoryContext context, void *pointer, Size size);
static void chunk_reset(MemoryContext context);
static void chunk_delete(MemoryContext context);
static Size chunk_space(MemoryContext context, void *pointer);
static bool chunk_is_empty(MemoryContext context);
static void chunk_stats(MemoryContext context, MemoryStatsPrintFunc printfunc,
						void *passthru, MemoryContextCounters *totals,
						bool print_to_stderr);
#ifdef MEMORY_CONTEXT_CHECKING
static void chunk_check(MemoryContext context);
#endif

static const MemoryContextMethods chunk_methods = {
	chunk_alloc,
	chunk_free,
	chunk_realloc,
	chunk_reset,
	chunk_delete,
	chunk_space,
	chunk_is_empty,
	chunk_stats
#ifdef MEMORY_CONTEXT_CHECKING
	,chunk_check
#endif
};

static void
link_chunk(ChunkContext *cc, ChunkHeader *chunk, Size size)
{
	chunk->prev = NULL;
	chunk->next = cc->chunks;
	if (cc->chunks)
		cc->chunks->prev = chunk;
	cc->chunks = chunk;
	chunk->size = size;
	chunk->context = &cc->header;
	cc->nchunks++;
	cc->header.mem_allocated += size + sizeof(ChunkHeader);
}

static void
unlink_chunk(ChunkContext *cc, ChunkHeader *chunk)
{
	if (chunk->prev)
		chunk->prev->next = chunk->next;
	else
		cc->chunks = chunk->next;
	if (chunk->next)
		chunk->next->prev = chunk->prev;
	cc->nchunks--;
	cc->header.mem_allocated -= chunk->size + sizeof(ChunkHeader);
}

static void *
chunk_alloc(MemoryContext context, Size size)
{
	ChunkHeader *chunk = malloc(sizeof(ChunkHeader) + size);

	if (chunk == NULL)
		return NULL;			/* mcxt.c raises "out of memory" */
	link_chunk((ChunkContext *) context, chunk, size);
	return DATA(chunk);
}

static void
chunk_free(MemoryContext context, void *pointer)
{
	ChunkHeader *chunk = HDR(pointer);

	unlink_chunk((ChunkContext *) context, chunk);
	free(chunk);
}

/* Always moves, so that a pointer kept to the old place is reported. */
static void *
chunk_realloc(MemoryContext context, void *pointer, Size size)
{
	ChunkHeader *old = HDR(pointer);
	ChunkHeader *chunk = malloc(sizeof(ChunkHeader) + size);

	if (chunk == NULL)
		return NULL;
	memcpy(DATA(chunk), pointer, Min(size, old->size));
	unlink_chunk((ChunkContext *) context, old);
	free(old);
	link_chunk((ChunkContext *) context, chunk, size);
	return DATA(chunk);
}

static void
chunk_reset(MemoryContext context)
{
	ChunkContext *cc = (ChunkContext *) context;

	while (cc->chunks)
	{
		ChunkHeader *chunk = cc->chunks;

		unlink_chunk(cc, chunk);
		free(chunk);
	}
}

static void
chunk_delete(MemoryContext context)
{
	chunk_reset(context);
	free(context);
}

static Size
chunk_space(MemoryContext context, void *pointer)
{
	return HDR(pointer)->size + sizeof(ChunkHeader);
}

static bool
chunk_is_empty(MemoryContext context)
{
	return ((ChunkContext *) context)->chunks == NULL;
}

static void
chunk_stats(MemoryContext context, MemoryStatsPrintFunc printfunc,
			void *passthru, MemoryContextCounters *totals, bool print_to_stderr)
{
	ChunkContext *cc = (ChunkContext *) context;

	if (printfunc)
	{
		char		line[100];

		snprintf(line, sizeof(line), "%zu total in %zu chunks",
				 cc->header.mem_allocated, cc->nchunks);
		printfunc(context, passthru, line, print_to_stderr);
	}
	if (totals)
	{
		totals->nblocks += cc->nchunks;
		totals->totalspace += cc->header.mem_allocated;
	}
}

#ifdef MEMORY_CONTEXT_CHECKING
static void
chunk_check(MemoryContext context)
{
}
#endif

/* The chunk context under `parent` (created at first use), or parent itself. */
static MemoryContext
chunk_context_of(MemoryContext parent)
{
	MemoryContext child;
	ChunkContext *cc;

	if (parent->methods == &chunk_methods)
		return parent;
	for (child = parent->firstchild; child != NULL; child = child->nextchild)
		if (child->methods == &chunk_methods)
			return child;
	cc = malloc(sizeof(ChunkContext));
	if (cc == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Failed while creating memory context \"fairshare chunks\".")));
	cc->chunks = NULL;
	cc->nchunks = 0;
	MemoryContextCreate(&cc->header, T_AllocSetContext, &chunk_methods, parent,
						"fairshare chunks");
	return &cc->header;
}

/* palloc and friends: mcxt.c's own checks (sizes, NO_OOM, ZERO) in our context */
void *
fs_chunk_alloc(MemoryContext parent, Size size, int flags)
{
	return MemoryContextAllocExtended(chunk_context_of(parent), size, flags);
}

/* pstrdup (maxlen SIZE_MAX) and pnstrdup */
char *
fs_chunk_strdup(MemoryContext parent, const char *s, Size maxlen)
{
	Size		len = maxlen == SIZE_MAX ? strlen(s) : strnlen(s, maxlen);
	char	   *copy = fs_chunk_alloc(parent, len + 1, 0);

	memcpy(copy, s, len);
	copy[len] = '\0';
	return copy;
}
