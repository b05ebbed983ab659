// SPDX-License-Identifier: MIT
// raster_plan.comp.glsl — the compute raster's plan on its own, one
// workgroup (compute_raster.c, after shade.glsl, raster_setup.glsl,
// raster_slots.glsl, radix_workgroup_scan.glsl and raster_plan.glsl, as
// the large count): a frame's plan runs in the large count's last
// workgroup, and again here only where a caller's sort, which takes the
// total on the host, has grown the buffers after the count, so that the
// fragments kept and the later passes' workgroups follow the new
// capacity.

void main()
{
    plan_frame();
}
