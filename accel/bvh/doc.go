// Package bvh builds and traverses bounding volume hierarchies on the host:
// the library under lucent's software ray-tracing path, and the reference its
// GPU traversal is checked against.
//
// A Mesh is a bottom-level hierarchy over triangles or over axis-aligned boxes
// (procedural primitives); a Scene is a top-level hierarchy over instances of
// meshes, each with a 3×4 transform, a visibility mask, an opaque flag and a
// user id. Both use one node type, Node, whose 32-byte layout is the contract
// with the GPU kernel that traverses the same arrays: docs/bvh.md gives it
// byte by byte, with the traversal order and the ray–triangle test.
//
// The one choice a reader must know: hits are decided by the watertight
// ray–triangle test of Woop, Benthin and Wald ("Watertight Ray/Triangle
// Intersection", JCGT 2013), and box tests are widened by the bound of Ize
// ("Robust BVH Ray Traversal", JCGT 2013), so a ray through a shared edge or
// vertex never slips between two triangles, and traversal returns exactly the
// hit a brute-force loop over every primitive returns — ties in t go to the
// lower instance index, then the lower primitive id, whatever the order the
// tree is visited in.
//
// The package imports only the standard library.
package bvh
