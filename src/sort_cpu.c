/* sort_cpu.c — placeholder until the sort library issue lands. */
#include "sort_backend.h"

const ds_sort_backend ds_sort_backend_cpu = {"cpu", 1, 0, NULL, NULL, NULL, NULL};
