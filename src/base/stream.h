/* SPDX-License-Identifier: MIT */
/* stream.h — ds_stream, an opaque stand-in for cudaStream_t so that C code
 * (the sort and render APIs) needs no CUDA headers. Pass a cudaStream_t, or
 * 0 for the legacy default stream. */
#ifndef DS_STREAM_H
#define DS_STREAM_H

typedef struct CUstream_st *ds_stream;

#endif
