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
    (local $i i32) (local $str v128) (local $hi v128) (local $t v128)
    (block $done
      (loop $loop
        (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $len)))
        (local.set $str (v128.load (i32.add (local.get $src) (local.get $i))))
        (local.set $hi (i8x16.shr_u (local.get $str) (i32.const 4)))
        (br_if $done
          (v128.any_true
            (v128.and
              (i8x16.swizzle
                (v128.const i8x16 0x15 0x11 0x11 0x11 0x11 0x11 0x11 0x11 0x11 0x11 0x13 0x1A 0x1B 0x1B 0x1B 0x1A)
                (v128.and (local.get $str) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
              (i8x16.swizzle
                (v128.const i8x16 0x10 0x10 0x01 0x02 0x04 0x08 0x04 0x08 0x10 0x10 0x10 0x10 0x10 0x10 0x10 0x10)
                (local.get $hi)))))
        (local.set $str
          (i8x16.add (local.get $str)
            (i8x16.swizzle
              (v128.const i8x16 0 16 19 4 -65 -65 -71 -71 0 0 0 0 0 0 0 0)
              (i8x16.add (local.get $hi)
                (i8x16.eq (local.get $str) (v128.const i8x16 0x2F 0x2F 0x2F 0x2F 0x2F 0x2F 0x2F 0x2F 0x2F 0x2F 0x2F 0x2F 0x2F 0x2F 0x2F 0x2F))))))
        ;; 16-bit lanes [b a] -> a<<6 | b
        (local.set $t
          (v128.or
            (i16x8.shl (v128.and (local.get $str) (v128.const i16x8 0xFF 0xFF 0xFF 0xFF 0xFF 0xFF 0xFF 0xFF)) (i32.const 6))
            (i16x8.shr_u (local.get $str) (i32.const 8))))
        ;; 32-bit lanes [cd ab] -> ab<<12 | cd
        (local.set $t (i32x4.dot_i16x8_s (local.get $t) (v128.const i16x8 0x1000 1 0x1000 1 0x1000 1 0x1000 1)))
        (v128.store
          (i32.add (local.get $dst) (i32.mul (i32.shr_u (local.get $i) (i32.const 4)) (i32.const 12)))
          (i8x16.shuffle 2 1 0 6 5 4 10 9 8 14 13 12 0 0 0 0 (local.get $t) (local.get $t)))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $loop)))
    (local.get $i)))
