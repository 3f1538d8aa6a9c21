// The standard streams (std::cout and its kin) are never made in the shim.
//
// absl/status/status.h includes <iostream>, so with GCC 12 every file of the
// shim holds a std::ios_base::Init object, and loading the shim built the
// eight standard streams and the whole classic locale in every process under
// klaunch: about 0.3 ms of each new process's start here (docs/performance.md).
// The shim writes with write(2) and uses no standard stream, so the link
// (shim/meson.build, --wrap) sends each Init's construction and destruction
// here, where nothing happens. A string stream still works: the locale it
// needs is made the first time one is used. (Abseil's Cord debugging code
// names std::cout, which keeps that object in the shim, unmade; the shim
// never calls it.) ShimFiles.TheShimLeavesTheStandardStreamsUnmade fails
// should the real Init come back into the shim.

extern "C" {
__attribute__((visibility("hidden"))) void __wrap__ZNSt8ios_base4InitC1Ev(
    void*) {}
__attribute__((visibility("hidden"))) void __wrap__ZNSt8ios_base4InitD1Ev(
    void*) {}
}
