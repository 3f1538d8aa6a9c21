/* fopen, fopen64, freopen of the denied, outside and new files under ROOT
 * (argv[1]), then a workspace read and write, for ShimFiles.
 * FopenOfADeniedPathIsRefusedAndFopenForWritingOutsideCreatesNothing. */

#include "files_prelude.h"

int main(int argc, char** argv) {
  root = argv[1];
  const char* secret = P("secret/key.txt");
  const char* outside = P("outside.txt");
  show_file("fopen r secret", fopen(secret, "r"));
  show_file("fopen re secret", fopen(secret, "re"));
  show_file("fopen rb secret", fopen(secret, "rb"));
  show_file("fopen r+ secret", fopen(secret, "r+"));
  show_file("fopen ccs secret", fopen(secret, "r,ccs=UTF-8"));
  show_file("fopen64 r secret", fopen64(secret, "r"));
  show_file("fopen r outside", fopen(outside, "r"));
  show_file("fopen w new outside", fopen(P("fopen_w.txt"), "w"));
  show_file("fopen a new outside", fopen(P("fopen_a.txt"), "a"));
  show_file("fopen wx new outside", fopen(P("fopen_wx.txt"), "wx"));
  show_file("fopen w+ new outside", fopen(P("fopen_wplus.txt"), "w+"));
  show_file("fopen w outside", fopen(outside, "w"));
  show_file("fopen a outside", fopen(outside, "a"));
  show_file("fopen w secret", fopen(secret, "w"));
  show_file("fopen w new in secret", fopen(P("secret/new.txt"), "w"));
  FILE* s = fopen("a.txt", "r");
  show("freopen secret", freopen(secret, "r", s) ? 0 : -1);
  FILE* g = fopen("a.txt", "r");
  char line[64] = "";
  if (g && fgets(line, sizeof(line), g)) printf("ws read: %s", line);
  if (g) fclose(g);
  FILE* w = fopen("written.txt", "w");
  show("fopen w ws", w ? 0 : -1);
  if (w) {
    fputs("via stdio\n", w);
    fclose(w);
  }
  return 0;
}
