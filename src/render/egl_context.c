/* SPDX-License-Identifier: MIT */
/* egl_context.c — a headless OpenGL 4.5 core context (see egl_context.h).
 *
 * Display choice, first that works:
 *   1. the EGL device whose EGL_CUDA_DEVICE_NV is the current CUDA device
 *      (EGL_EXT_device_enumeration + EGL_NV_device_cuda): GL and CUDA then
 *      share one GPU, which interop needs;
 *   2. Mesa's surfaceless platform (llvmpipe in CI);
 *   3. the default display.
 * The EGL entry points are loaded from libEGL by glad, GL through
 * eglGetProcAddress once the context is current. */
#include "egl_context.h"

#include <glad/egl.h>
#include <glad/gl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "interop.h"

struct ds_egl_context {
    EGLDisplay display;
    EGLContext context;
    char platform[64];
};

static int has_extension(const char *list, const char *name)
{
    size_t length = strlen(name);
    for (const char *p = list; p && (p = strstr(p, name)); p += length)
        if ((p == list || p[-1] == ' ') && (p[length] == ' ' || p[length] == '\0'))
            return 1;
    return 0;
}

/* The EGL display of the device that is CUDA device `cuda_device`, or
 * EGL_NO_DISPLAY. */
static EGLDisplay cuda_device_display(int cuda_device)
{
    /* Fetched here rather than trusted from glad: a driver may list only
     * EGL_EXT_device_base, which implies the enumeration and query
     * extensions, and glad loads entry points by the names it sees. */
    PFNEGLQUERYDEVICESEXTPROC query_devices =
        (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    PFNEGLQUERYDEVICESTRINGEXTPROC query_string =
        (PFNEGLQUERYDEVICESTRINGEXTPROC)eglGetProcAddress("eglQueryDeviceStringEXT");
    PFNEGLQUERYDEVICEATTRIBEXTPROC query_attribute =
        (PFNEGLQUERYDEVICEATTRIBEXTPROC)eglGetProcAddress("eglQueryDeviceAttribEXT");
    PFNEGLGETPLATFORMDISPLAYEXTPROC platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (!query_devices || !query_string || !query_attribute || !platform_display)
        return EGL_NO_DISPLAY;
    EGLDeviceEXT devices[16];
    EGLint count = 0;
    if (!query_devices(16, devices, &count))
        return EGL_NO_DISPLAY;
    for (EGLint i = 0; i < count; i++) {
        const char *extensions = query_string(devices[i], EGL_EXTENSIONS);
        EGLAttrib attribute = -1;
        if (!has_extension(extensions, "EGL_NV_device_cuda") ||
            !query_attribute(devices[i], EGL_CUDA_DEVICE_NV, &attribute) ||
            attribute != cuda_device)
            continue;
        return platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL);
    }
    return EGL_NO_DISPLAY;
}

/* Initialises `display` and makes a GL 4.5 core context current on it. */
static int try_display(ds_egl_context *context, EGLDisplay display, int debug)
{
    EGLint major = 0, minor = 0;
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor))
        return 0;
    /* Reload: display extensions (and EGL 1.5 entry points) now known. */
    gladLoaderLoadEGL(display);
    const char *extensions = eglQueryString(display, EGL_EXTENSIONS);
    if (!has_extension(extensions, "EGL_KHR_surfaceless_context") ||
        !eglBindAPI(EGL_OPENGL_API)) {
        eglTerminate(display);
        return 0;
    }
    /* No surface at all: EGL_SURFACE_TYPE 0 matches every config (the
     * default, EGL_WINDOW_BIT, would match none on a surfaceless display). */
    const EGLint config_attributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                        EGL_SURFACE_TYPE, 0, EGL_NONE};
    EGLConfig config;
    EGLint config_count = 0;
    const EGLint context_attributes[] = {
        EGL_CONTEXT_MAJOR_VERSION, 4,
        EGL_CONTEXT_MINOR_VERSION, 5,
        EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
        EGL_CONTEXT_OPENGL_DEBUG, debug ? EGL_TRUE : EGL_FALSE,
        EGL_NONE};
    EGLContext egl_context = EGL_NO_CONTEXT;
    if (eglChooseConfig(display, config_attributes, &config, 1, &config_count) &&
        config_count > 0)
        egl_context = eglCreateContext(display, config, EGL_NO_CONTEXT,
                                       context_attributes);
    if (egl_context == EGL_NO_CONTEXT ||
        !eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, egl_context) ||
        !gladLoadGL((GLADloadfunc)eglGetProcAddress) || !GLAD_GL_VERSION_4_5) {
        if (egl_context != EGL_NO_CONTEXT) {
            eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
            eglDestroyContext(display, egl_context);
        }
        eglTerminate(display);
        return 0;
    }
    context->display = display;
    context->context = egl_context;
    return 1;
}

ds_status ds_egl_context_create(int debug, ds_egl_context **dest)
{
    *dest = NULL;
    if (!gladLoaderLoadEGL(EGL_NO_DISPLAY))
        return ds_fail(DS_ERR_NO_DEVICE, "egl: cannot load libEGL");
    ds_egl_context *context = calloc(1, sizeof *context);
    if (!context)
        return ds_fail(DS_ERR_OUT_OF_MEMORY, "egl: out of host memory");

    int cuda_device = -1;
    if (ds_interop_cuda_available() && cudaGetDevice(&cuda_device) != cudaSuccess)
        cuda_device = -1;
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (cuda_device >= 0 &&
        try_display(context, cuda_device_display(cuda_device), debug)) {
        snprintf(context->platform, sizeof context->platform, "device (CUDA %d)",
                 cuda_device);
    } else if (has_extension(client, "EGL_MESA_platform_surfaceless") &&
               try_display(context,
                           eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA,
                                                    EGL_DEFAULT_DISPLAY, NULL),
                           debug)) {
        snprintf(context->platform, sizeof context->platform, "surfaceless");
    } else if (try_display(context, eglGetDisplay(EGL_DEFAULT_DISPLAY), debug)) {
        snprintf(context->platform, sizeof context->platform, "default");
    } else {
        free(context);
        gladLoaderUnloadEGL();
        return ds_fail(DS_ERR_NO_DEVICE,
                       "egl: no EGL display offers an OpenGL 4.5 core context");
    }

    /* Interop needs GL and CUDA on one GPU; say so if they are not. */
    if (cuda_device >= 0) {
        int gl_device = ds_interop_gl_cuda_device();
        if (gl_device != cuda_device)
            ds_warn("egl: the %s display is not CUDA device %d (GL runs on %s)",
                    context->platform, cuda_device,
                    gl_device < 0 ? "no CUDA device" : "another CUDA device");
    }
    *dest = context;
    return DS_OK;
}

void ds_egl_context_destroy(ds_egl_context *context)
{
    if (!context)
        return;
    eglMakeCurrent(context->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(context->display, context->context);
    eglTerminate(context->display);
    gladLoaderUnloadEGL();
    free(context);
}

const char *ds_egl_context_platform(const ds_egl_context *context)
{
    return context->platform;
}
