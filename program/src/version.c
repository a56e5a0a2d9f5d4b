/*
 * The program's version, kept in the ELF (and so in a deployed program's data account) where
 * clients find it: the bytes after "tape-program-version=" in .rodata, up to the NUL
 * (src/chain/program-version.ts). `tape network deploy` replaces a deployed program only with
 * a build whose version is newer, and `tape network status` shows it. Bump it (major.minor.patch)
 * in the same commit as any change to the program's sources; the build refuses an ELF without
 * it (tools/build-program.ts). Nothing in the program reads it: the global is kept because it
 * has external linkage, and the linker copies every .rodata input.
 */
const char tape_program_version[] = "tape-program-version=1.3.0";
