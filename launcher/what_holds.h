// What each layer holds against a program that has read klaunch's source
// (and so found the shim's cookie): for each attack SECURITY.md speaks of,
// which layer stops it in a setting (the Landlock ABI klaunch uses, root or
// not, a writable cgroup v2 tree or not), and the tests that try it.
//
// One statement serves three readers: SECURITY.md's table is
// WhatHoldsMarkdown() (a test keeps the two in step), `klaunch doctor`
// prints the column of the machine it runs on, and the tests named here are
// the ones scripts/attack-matrix runs in each setting. This module owns the
// statements; it proves nothing: the tests it names do, and a test checks
// that every one of them exists.

#ifndef KLAUNCH_LAUNCHER_WHAT_HOLDS_H_
#define KLAUNCH_LAUNCHER_WHAT_HOLDS_H_

#include <string>
#include <vector>

namespace klaunch {

struct Setting {
  std::string name;      // the column's heading
  int landlock_abi = 0;  // what klaunch applies; 0: no Landlock
  bool root = true;
  bool cgroup = true;  // a writable cgroup v2 tree (the run's cgroup)
};

struct Holding {
  std::string attack;   // what the program tries
  std::string held_by;  // the layers that stop it; "NOT HELD: why" if none
  std::vector<std::string> tests;  // Suite.Name of the tests that try it
};

// Every attack, in SECURITY.md's order, with who stops it in `s`.
std::vector<Holding> WhatHolds(const Setting& s);

// The settings scripts/attack-matrix runs (and SECURITY.md's columns).
std::vector<Setting> MatrixSettings();

// SECURITY.md's table: one row per attack, one column per matrix setting,
// and the tests of each row.
std::string WhatHoldsMarkdown();

}  // namespace klaunch

#endif  // KLAUNCH_LAUNCHER_WHAT_HOLDS_H_
