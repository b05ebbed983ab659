/* cli_stub_render.c — placeholder so ds_render has a source until the render pipeline lands. */
#include "status.h"

