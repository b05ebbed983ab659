/* SPDX-License-Identifier: MIT */
/* fuzz_ply.c — libFuzzer target for the PLY loader: any bytes must load or
 * fail with a message, never crash, read out of bounds or leak; a loaded
 * mesh must hold its invariants (fuzz_check.h). */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_check.h"
#include "load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ds_log_set_quiet(1);
    ds_mesh mesh;
    ds_status status = ds_load_ply_memory(data, size, "fuzz.ply", &mesh);
    check_loaded_mesh(status, &mesh);
    ds_mesh_free(&mesh);
    return 0;
}
