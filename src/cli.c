/* cli.c — placeholder until the foundation issue lands. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

void ds_cli_usage(void *stream) { fprintf((FILE *)stream, "usage: depthsort [MODEL] (placeholder)\n"); }
ds_status ds_cli_parse(int argc, char **argv, ds_options *dest, int *exit_now)
{
    memset(dest, 0, sizeof *dest);
    *exit_now = 0;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help")) { ds_cli_usage(stdout); *exit_now = 1; }
    return DS_OK;
}
