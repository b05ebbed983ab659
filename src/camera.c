/* camera.c — placeholder until the foundation issue lands. */
#include "camera.h"
