# SPDX-License-Identifier: MIT
# glad.cmake — generates the GL 4.5 core + EGL 1.5 loader into the build tree
# at configure time with Debian's python3-glad, offline (--reproducible).
# Generated code is never committed. Defines the target ds_glad.

find_program(DS_GLAD_EXECUTABLE glad REQUIRED
             DOC "glad loader generator (Debian package python3-glad)")

# Extensions the project uses; changing this list regenerates the loader.
set(DS_GL_EXTENSIONS
    GL_KHR_debug
    GL_ARB_timer_query
    GL_EXT_memory_object
    GL_EXT_memory_object_fd
    GL_EXT_semaphore
    GL_EXT_semaphore_fd
    EGL_EXT_device_base
    EGL_EXT_device_enumeration
    EGL_EXT_device_query
    EGL_EXT_platform_base
    EGL_EXT_platform_device
    EGL_MESA_platform_surfaceless
    EGL_KHR_surfaceless_context
    EGL_KHR_create_context
    EGL_NV_device_cuda)
list(JOIN DS_GL_EXTENSIONS "," ds_glad_extension_arg)

set(ds_glad_dir "${CMAKE_BINARY_DIR}/glad")
set(ds_glad_stamp "${ds_glad_dir}/extensions.txt")
set(ds_glad_wanted "gl:core=4.5,egl=1.5 ${ds_glad_extension_arg}")
if(EXISTS "${ds_glad_stamp}")
  file(READ "${ds_glad_stamp}" ds_glad_have)
else()
  set(ds_glad_have "")
endif()
if(NOT ds_glad_have STREQUAL ds_glad_wanted OR NOT EXISTS "${ds_glad_dir}/src/gl.c")
  message(STATUS "Generating the GL/EGL loader with glad")
  file(REMOVE_RECURSE "${ds_glad_dir}")
  execute_process(
    COMMAND "${DS_GLAD_EXECUTABLE}" --quiet --reproducible
            --api gl:core=4.5,egl=1.5
            --extensions "${ds_glad_extension_arg}"
            --out-path "${ds_glad_dir}" c --loader
    RESULT_VARIABLE ds_glad_result
    OUTPUT_QUIET ERROR_VARIABLE ds_glad_error)
  if(NOT ds_glad_result EQUAL 0)
    message(FATAL_ERROR "glad failed (${ds_glad_result}): ${ds_glad_error}")
  endif()
  file(WRITE "${ds_glad_stamp}" "${ds_glad_wanted}")
endif()

add_library(ds_glad STATIC "${ds_glad_dir}/src/gl.c" "${ds_glad_dir}/src/egl.c")
target_include_directories(ds_glad SYSTEM PUBLIC "${ds_glad_dir}/include")
target_link_libraries(ds_glad PUBLIC ${CMAKE_DL_LIBS})
set_target_properties(ds_glad PROPERTIES POSITION_INDEPENDENT_CODE ON)
