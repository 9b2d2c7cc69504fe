# Runs execve through the i386 system call ABI (int 0x80) from a 64-bit
# process: argv[1] is the path, the rest its argv. An exec gate or a
# sandbox filter that only knows the x86_64 numbers misses it. Prints what
# the call returned when it returns (it does only when it failed).
import ctypes
import struct
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
PROT_RWX, MAP_PRIVATE, MAP_ANON, MAP_32BIT = 7, 0x02, 0x20, 0x40
base = libc.mmap(None, 4096, PROT_RWX, MAP_PRIVATE | MAP_ANON | MAP_32BIT, -1, 0)
if base in (None, ctypes.c_void_p(-1).value):
    sys.exit("mmap failed")

path = sys.argv[1].encode() + b"\0"
strs, offsets = path, []
for a in sys.argv[2:]:
    offsets.append(256 + len(strs))
    strs += a.encode() + b"\0"
argv = b"".join(struct.pack("<I", base + o) for o in offsets) + b"\0\0\0\0"
code = (b"\xb8\x0b\x00\x00\x00"                       # mov eax, 11 (execve)
        + b"\xbb" + struct.pack("<I", base + 256)     # mov ebx, path
        + b"\xb9" + struct.pack("<I", base + 1024)    # mov ecx, argv
        + b"\x31\xd2"                                  # xor edx, edx (no env)
        + b"\xcd\x80"                                  # int 0x80
        + b"\xc3")                                     # ret
ctypes.memmove(base, code, len(code))
ctypes.memmove(base + 256, strs, len(strs))
ctypes.memmove(base + 1024, argv, len(argv))
r = ctypes.CFUNCTYPE(ctypes.c_long)(base)() & 0xFFFFFFFF
print("int 0x80 execve returned", r - (1 << 32) if r >= 1 << 31 else r)
