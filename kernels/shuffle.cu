/* shuffle.cu — placeholder until the sort library issue lands. */
#include "sort_backend.h"

extern "C" ds_status ds_shuffle_pairs(float *, uint32_t *, float *, uint32_t *, size_t, uint64_t, ds_stream)
{
    return ds_fail(DS_ERR_NOT_BUILT, "shuffle: not built yet");
}
