/* Calls libc's other public names for its entry points (__open64, __open,
 * _IO_fopen, lchmod, shm_open), for
 * ShimFiles.OtherPublicNamesOfLibcEntryPointsAreJudgedToo. */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
int __open64(const char*, int, ...);
int __open(const char*, int, ...);
FILE* _IO_fopen(const char*, const char*);
int lchmod(const char*, mode_t);
int main(int argc, char** argv) {
  printf("__open64 %d\n", __open64(argv[1], O_RDONLY) >= 0 ? 0 : errno);
  printf("__open %d\n", __open(argv[2], O_WRONLY | O_TRUNC) >= 0 ? 0 : errno);
  printf("_IO_fopen %d\n", _IO_fopen(argv[1], "r") ? 0 : errno);
  printf("lchmod %d\n", lchmod(argv[2], 0777) == 0 ? 0 : errno);
  printf(
      "shm_open %d\n",
      shm_open("/klaunch-test-shm", O_CREAT | O_RDWR, 0600) >= 0 ? 0 : errno);
  return 0;
}
