/* SPDX-License-Identifier: MIT */
/* technique_flat.h — the line the test build adds to the technique
 * registry (technique_registry.h, DS_TECHNIQUE_REGISTRY_EXTRA): the test
 * of docs/architecture.md's "how to add a technique". */
#ifndef DS_TECHNIQUE_FLAT_H
#define DS_TECHNIQUE_FLAT_H

#define DS_TECHNIQUE_REGISTRY_MORE(X) \
    X(FLAT, flat, flat, "flat (test)", 5, "the nearest surface, opaque (a test)")

#endif
