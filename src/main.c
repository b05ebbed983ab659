/* main.c — depthsort's entry: parse the command line, then hand over to
 * --info, the headless runner or the viewer. Holds no algorithm. */
#include <stdio.h>

#include "cli.h"
#include "headless.h"
#include "viewer.h"

int main(int argc, char **argv)
{
    ds_options opts;
    int exit_now = 0;
    if (ds_cli_parse(argc, argv, &opts, &exit_now) != DS_OK)
        return 2;
    if (exit_now)
        return 0;
    if (opts.headless || !ds_viewer_display_available())
        return ds_headless_run(&opts);
    return ds_viewer_run(&opts);
}
