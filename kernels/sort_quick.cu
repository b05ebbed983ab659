/* sort_quick.cu — placeholder: reports "not built yet" until its issue lands. */
#include "sort_backend.h"

extern "C" const ds_sort_backend ds_sort_backend_quick = {"quick", 0, 0, NULL, NULL, NULL, NULL};
