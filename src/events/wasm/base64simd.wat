;; Strict base64 block decoder, wasm SIMD (128-bit). Source of base64simd.ts (regenerate with
;; `node src/events/wasm/build.mjs`, which needs the `wabt` npm package, a build-time tool only).
;;
;; decode(src, len, dst) decodes whole 16-character blocks of src[0..len) into 12 bytes each at dst,
;; stopping before the first block that holds a character outside A-Z a-z 0-9 + / (padding, a
;; closing quote, an escape, garbage); returns the number of characters consumed (a multiple of
;; 16). The caller decodes and validates the rest with the scalar decoder. Each store writes 16
;; bytes, so dst needs 4 bytes of slack after the last 12-byte group.
;;
;; Classification by nibble lookup tables, after Wojciech Mula and Daniel Lemire, "Faster Base64
;; Encoding and Decoding Using AVX2 Instructions" (2018): a byte is valid iff
;; lut_lo[lo nibble] & lut_hi[hi nibble] == 0, and its 6-bit value is byte + lut_roll[hi nibble
;; (minus 1 for '/')].
(module
  (memory (export "memory") 1)
  (func (export "decode") (param $src i32) (param $len i32) (param $dst i32) (result i32)
    (local $i i32) (local $o i32) (local $str v128) (local $hi v128) (local $t v128)
    (local $lutLo v128) (local $lutHi v128) (local $lutRoll v128)
    (local $mask0F v128) (local $slash v128) (local $mask00FF v128) (local $mul v128)
    ;; Constants live in locals: V8 does not hoist v128.const out of the loop.
    (local.set $lutLo (v128.const i8x16 0x15 0x11 0x11 0x11 0x11 0x11 0x11 0x11 0x11 0x11 0x13 0x1A 0x1B 0x1B 0x1B 0x1A))
    (local.set $lutHi (v128.const i8x16 0x10 0x10 0x01 0x02 0x04 0x08 0x04 0x08 0x10 0x10 0x10 0x10 0x10 0x10 0x10 0x10))
    (local.set $lutRoll (v128.const i8x16 0 16 19 4 -65 -65 -71 -71 0 0 0 0 0 0 0 0))
    (local.set $mask0F (i8x16.splat (i32.const 0x0F)))
    (local.set $slash (i8x16.splat (i32.const 0x2F)))
    (local.set $mask00FF (i16x8.splat (i32.const 0xFF)))
    (local.set $mul (v128.const i16x8 0x1000 1 0x1000 1 0x1000 1 0x1000 1))
    (local.set $o (local.get $dst))
    ;; Two blocks per turn (fewer loop branches), then at most one more.
    (block $done
      (block $tail
        (loop $loop
          (br_if $tail (i32.gt_u (i32.add (local.get $i) (i32.const 32)) (local.get $len)))
        (local.set $str (v128.load (i32.add (local.get $src) (local.get $i))))
        (local.set $hi (v128.and (i16x8.shr_u (local.get $str) (i32.const 4)) (local.get $mask0F)))
        (br_if $done
          (v128.any_true
            (v128.and
              (i8x16.swizzle (local.get $lutLo) (v128.and (local.get $str) (local.get $mask0F)))
              (i8x16.swizzle (local.get $lutHi) (local.get $hi)))))
        (local.set $str
          (i8x16.add (local.get $str)
            (i8x16.swizzle (local.get $lutRoll)
              (i8x16.add (local.get $hi) (i8x16.eq (local.get $str) (local.get $slash))))))
        ;; 16-bit lanes [b a] -> a<<6 | b
        (local.set $t
          (v128.or
            (i16x8.shl (v128.and (local.get $str) (local.get $mask00FF)) (i32.const 6))
            (i16x8.shr_u (local.get $str) (i32.const 8))))
        ;; 32-bit lanes [cd ab] -> ab<<12 | cd
        (local.set $t (i32x4.dot_i16x8_s (local.get $t) (local.get $mul)))
        (v128.store (local.get $o)
          (i8x16.shuffle 2 1 0 6 5 4 10 9 8 14 13 12 0 0 0 0 (local.get $t) (local.get $t)))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (local.set $o (i32.add (local.get $o) (i32.const 12)))
        (local.set $str (v128.load (i32.add (local.get $src) (local.get $i))))
        (local.set $hi (v128.and (i16x8.shr_u (local.get $str) (i32.const 4)) (local.get $mask0F)))
        (br_if $done
          (v128.any_true
            (v128.and
              (i8x16.swizzle (local.get $lutLo) (v128.and (local.get $str) (local.get $mask0F)))
              (i8x16.swizzle (local.get $lutHi) (local.get $hi)))))
        (local.set $str
          (i8x16.add (local.get $str)
            (i8x16.swizzle (local.get $lutRoll)
              (i8x16.add (local.get $hi) (i8x16.eq (local.get $str) (local.get $slash))))))
        ;; 16-bit lanes [b a] -> a<<6 | b
        (local.set $t
          (v128.or
            (i16x8.shl (v128.and (local.get $str) (local.get $mask00FF)) (i32.const 6))
            (i16x8.shr_u (local.get $str) (i32.const 8))))
        ;; 32-bit lanes [cd ab] -> ab<<12 | cd
        (local.set $t (i32x4.dot_i16x8_s (local.get $t) (local.get $mul)))
        (v128.store (local.get $o)
          (i8x16.shuffle 2 1 0 6 5 4 10 9 8 14 13 12 0 0 0 0 (local.get $t) (local.get $t)))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (local.set $o (i32.add (local.get $o) (i32.const 12)))
          (br $loop)))
      (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $len)))
        (local.set $str (v128.load (i32.add (local.get $src) (local.get $i))))
        (local.set $hi (v128.and (i16x8.shr_u (local.get $str) (i32.const 4)) (local.get $mask0F)))
        (br_if $done
          (v128.any_true
            (v128.and
              (i8x16.swizzle (local.get $lutLo) (v128.and (local.get $str) (local.get $mask0F)))
              (i8x16.swizzle (local.get $lutHi) (local.get $hi)))))
        (local.set $str
          (i8x16.add (local.get $str)
            (i8x16.swizzle (local.get $lutRoll)
              (i8x16.add (local.get $hi) (i8x16.eq (local.get $str) (local.get $slash))))))
        ;; 16-bit lanes [b a] -> a<<6 | b
        (local.set $t
          (v128.or
            (i16x8.shl (v128.and (local.get $str) (local.get $mask00FF)) (i32.const 6))
            (i16x8.shr_u (local.get $str) (i32.const 8))))
        ;; 32-bit lanes [cd ab] -> ab<<12 | cd
        (local.set $t (i32x4.dot_i16x8_s (local.get $t) (local.get $mul)))
        (v128.store (local.get $o)
          (i8x16.shuffle 2 1 0 6 5 4 10 9 8 14 13 12 0 0 0 0 (local.get $t) (local.get $t)))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (local.set $o (i32.add (local.get $o) (i32.const 12)))
    )
    (local.get $i))
  ;; scan(src, len, dst): the streaming form, called once per network read while an event's
  ;; audio string arrives in pieces. Decodes whole 16-character blocks of src[0..len) into dst
  ;; (12 bytes each) like decode, but also looks at the last partial block, and says where the
  ;; first character outside the alphabet is: returns -(1 + its index) when there is one in
  ;; src[0..len) (every block before its block is decoded: consumed = index - index % 16), else
  ;; the characters consumed (len rounded down to 16). Reads up to 15 bytes past len.
  (func (export "scan") (param $src i32) (param $len i32) (param $dst i32) (result i32)
    (local $i i32) (local $o i32) (local $str v128) (local $hi v128) (local $t v128) (local $bad v128)
    (local $lutLo v128) (local $lutHi v128) (local $lutRoll v128) (local $zero v128)
    (local $mask0F v128) (local $slash v128) (local $mask00FF v128) (local $mul v128) (local $bits i32)
    (local.set $lutLo (v128.const i8x16 0x15 0x11 0x11 0x11 0x11 0x11 0x11 0x11 0x11 0x11 0x13 0x1A 0x1B 0x1B 0x1B 0x1A))
    (local.set $lutHi (v128.const i8x16 0x10 0x10 0x01 0x02 0x04 0x08 0x04 0x08 0x10 0x10 0x10 0x10 0x10 0x10 0x10 0x10))
    (local.set $lutRoll (v128.const i8x16 0 16 19 4 -65 -65 -71 -71 0 0 0 0 0 0 0 0))
    (local.set $mask0F (i8x16.splat (i32.const 0x0F)))
    (local.set $slash (i8x16.splat (i32.const 0x2F)))
    (local.set $mask00FF (i16x8.splat (i32.const 0xFF)))
    (local.set $mul (v128.const i16x8 0x1000 1 0x1000 1 0x1000 1 0x1000 1))
    (local.set $zero (v128.const i64x2 0 0))
    (local.set $o (local.get $dst))
    ;; Two blocks per turn while both are digits (as in decode); the first block holding anything
    ;; else, and the last whole block, go through the one-block loop, which finds the exact index.
    (block $single
      (loop $pair
        (br_if $single (i32.gt_u (i32.add (local.get $i) (i32.const 32)) (local.get $len)))
        (local.set $str (v128.load (i32.add (local.get $src) (local.get $i))))
        (local.set $hi (v128.and (i16x8.shr_u (local.get $str) (i32.const 4)) (local.get $mask0F)))
        (local.set $bad
          (v128.and
            (i8x16.swizzle (local.get $lutLo) (v128.and (local.get $str) (local.get $mask0F)))
            (i8x16.swizzle (local.get $lutHi) (local.get $hi))))
        (br_if $single (v128.any_true (local.get $bad)))
        (local.set $str
          (i8x16.add (local.get $str)
            (i8x16.swizzle (local.get $lutRoll)
              (i8x16.add (local.get $hi) (i8x16.eq (local.get $str) (local.get $slash))))))
        (local.set $t
          (v128.or
            (i16x8.shl (v128.and (local.get $str) (local.get $mask00FF)) (i32.const 6))
            (i16x8.shr_u (local.get $str) (i32.const 8))))
        (local.set $t (i32x4.dot_i16x8_s (local.get $t) (local.get $mul)))
        (v128.store (local.get $o)
          (i8x16.shuffle 2 1 0 6 5 4 10 9 8 14 13 12 0 0 0 0 (local.get $t) (local.get $t)))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (local.set $o (i32.add (local.get $o) (i32.const 12)))
        (local.set $str (v128.load (i32.add (local.get $src) (local.get $i))))
        (local.set $hi (v128.and (i16x8.shr_u (local.get $str) (i32.const 4)) (local.get $mask0F)))
        (local.set $bad
          (v128.and
            (i8x16.swizzle (local.get $lutLo) (v128.and (local.get $str) (local.get $mask0F)))
            (i8x16.swizzle (local.get $lutHi) (local.get $hi))))
        (br_if $single (v128.any_true (local.get $bad)))
        (local.set $str
          (i8x16.add (local.get $str)
            (i8x16.swizzle (local.get $lutRoll)
              (i8x16.add (local.get $hi) (i8x16.eq (local.get $str) (local.get $slash))))))
        (local.set $t
          (v128.or
            (i16x8.shl (v128.and (local.get $str) (local.get $mask00FF)) (i32.const 6))
            (i16x8.shr_u (local.get $str) (i32.const 8))))
        (local.set $t (i32x4.dot_i16x8_s (local.get $t) (local.get $mul)))
        (v128.store (local.get $o)
          (i8x16.shuffle 2 1 0 6 5 4 10 9 8 14 13 12 0 0 0 0 (local.get $t) (local.get $t)))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (local.set $o (i32.add (local.get $o) (i32.const 12)))
        (br $pair)))
    (block $tail
      (loop $loop
        (br_if $tail (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $len)))
        (local.set $str (v128.load (i32.add (local.get $src) (local.get $i))))
        (local.set $hi (v128.and (i16x8.shr_u (local.get $str) (i32.const 4)) (local.get $mask0F)))
        (local.set $bad
          (v128.and
            (i8x16.swizzle (local.get $lutLo) (v128.and (local.get $str) (local.get $mask0F)))
            (i8x16.swizzle (local.get $lutHi) (local.get $hi))))
        (if (v128.any_true (local.get $bad))
          (then (return (i32.sub (i32.const -1) (i32.add (local.get $i) (i32.ctz (i8x16.bitmask (i8x16.ne (local.get $bad) (local.get $zero)))))))))
        (local.set $str
          (i8x16.add (local.get $str)
            (i8x16.swizzle (local.get $lutRoll)
              (i8x16.add (local.get $hi) (i8x16.eq (local.get $str) (local.get $slash))))))
        (local.set $t
          (v128.or
            (i16x8.shl (v128.and (local.get $str) (local.get $mask00FF)) (i32.const 6))
            (i16x8.shr_u (local.get $str) (i32.const 8))))
        (local.set $t (i32x4.dot_i16x8_s (local.get $t) (local.get $mul)))
        (v128.store (local.get $o)
          (i8x16.shuffle 2 1 0 6 5 4 10 9 8 14 13 12 0 0 0 0 (local.get $t) (local.get $t)))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (local.set $o (i32.add (local.get $o) (i32.const 12)))
        (br $loop)))
    (if (i32.eq (local.get $i) (local.get $len)) (then (return (local.get $i))))
    ;; The partial block: only its first len - i lanes count.
        (local.set $str (v128.load (i32.add (local.get $src) (local.get $i))))
        (local.set $hi (v128.and (i16x8.shr_u (local.get $str) (i32.const 4)) (local.get $mask0F)))
        (local.set $bad
          (v128.and
            (i8x16.swizzle (local.get $lutLo) (v128.and (local.get $str) (local.get $mask0F)))
            (i8x16.swizzle (local.get $lutHi) (local.get $hi))))
    (local.set $bits
      (i32.and
        (i8x16.bitmask (i8x16.ne (local.get $bad) (local.get $zero)))
        (i32.sub (i32.shl (i32.const 1) (i32.sub (local.get $len) (local.get $i))) (i32.const 1))))
    (if (local.get $bits)
      (then (return (i32.sub (i32.const -1) (i32.add (local.get $i) (i32.ctz (local.get $bits)))))))
    (local.get $i))
  ;; lineEnd(src, len): the index of the first LF or CR in src[0..len), or len when there is none.
  ;; For Base64Stage's tail reads (the rest of an event's data line after its audio), so that a
  ;; small read costs one native copy and this call instead of the framer's byte loop. Reads up to
  ;; 15 bytes past len (the lanes past len are masked off).
  (func (export "lineEnd") (param $src i32) (param $len i32) (result i32)
    (local $i i32) (local $str v128) (local $lf v128) (local $cr v128) (local $bits i32)
    (local.set $lf (i8x16.splat (i32.const 0x0A)))
    (local.set $cr (i8x16.splat (i32.const 0x0D)))
    (block $done
      (loop $loop
        (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
        (local.set $str (v128.load (i32.add (local.get $src) (local.get $i))))
        (local.set $bits
          (i8x16.bitmask (v128.or (i8x16.eq (local.get $str) (local.get $lf)) (i8x16.eq (local.get $str) (local.get $cr)))))
        (if (local.get $bits)
          (then
            (local.set $i (i32.add (local.get $i) (i32.ctz (local.get $bits))))
            (return (select (local.get $i) (local.get $len) (i32.lt_u (local.get $i) (local.get $len))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $loop)))
    (local.get $len))
)
