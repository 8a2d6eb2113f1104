;; float32 → s16 conversion, wasm SIMD (128-bit). Source of f32tos16.ts (regenerate with
;; `node src/codec/mp3/wasm/build.mjs`, which needs the `wabt` npm package, a build-time tool only).
;;
;; Each sample: x × 32768, rounded to nearest with ties to even (f32x4.nearest, as lrintf and so
;; ffmpeg's flt → s16 converter), then clipped to [-32768, 32767] by the saturating narrow.
;; Both functions work on whole groups of 8 samples: they may read up to 7 floats past n and
;; write up to 7 samples (mono) / 7 sample pairs (stereo) past n; the caller leaves that slack.
(module
  (memory (export "memory") 2)
  ;; mono(src, n, dst): s16 dst[i] = conv(f32 src[i]) for i < n (rounded up to 8)
  (func (export "mono") (param $src i32) (param $n i32) (param $dst i32)
    (local $end i32) (local $scale v128)
    (local.set $scale (v128.const f32x4 32768 32768 32768 32768))
    (local.set $end (i32.add (local.get $src) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
        (v128.store (local.get $dst)
          (i16x8.narrow_i32x4_s
            (i32x4.trunc_sat_f32x4_s (f32x4.nearest (f32x4.mul (v128.load (local.get $src)) (local.get $scale))))
            (i32x4.trunc_sat_f32x4_s (f32x4.nearest (f32x4.mul (v128.load offset=16 (local.get $src)) (local.get $scale))))))
        (local.set $src (i32.add (local.get $src) (i32.const 32)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
        (br $next))))
  ;; stereo(left, right, n, dst): interleaved s16 dst[2i] = conv(left[i]), dst[2i+1] = conv(right[i])
  (func (export "stereo") (param $l i32) (param $r i32) (param $n i32) (param $dst i32)
    (local $end i32) (local $scale v128) (local $a v128) (local $b v128)
    (local.set $scale (v128.const f32x4 32768 32768 32768 32768))
    (local.set $end (i32.add (local.get $l) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $l) (local.get $end)))
        (local.set $a
          (i16x8.narrow_i32x4_s
            (i32x4.trunc_sat_f32x4_s (f32x4.nearest (f32x4.mul (v128.load (local.get $l)) (local.get $scale))))
            (i32x4.trunc_sat_f32x4_s (f32x4.nearest (f32x4.mul (v128.load offset=16 (local.get $l)) (local.get $scale))))))
        (local.set $b
          (i16x8.narrow_i32x4_s
            (i32x4.trunc_sat_f32x4_s (f32x4.nearest (f32x4.mul (v128.load (local.get $r)) (local.get $scale))))
            (i32x4.trunc_sat_f32x4_s (f32x4.nearest (f32x4.mul (v128.load offset=16 (local.get $r)) (local.get $scale))))))
        (v128.store (local.get $dst)
          (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $a) (local.get $b)))
        (v128.store offset=16 (local.get $dst)
          (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $a) (local.get $b)))
        (local.set $l (i32.add (local.get $l) (i32.const 32)))
        (local.set $r (i32.add (local.get $r) (i32.const 32)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 32)))
        (br $next)))))
