;; The body of a JSON string (its characters escaped, without the quotes) from UTF-8 bytes, as
;; JSON.stringify writes it for a well-formed string: `"` and `\` behind a backslash, the control
;; characters with a short escape (\b \t \n \f \r) so, the others as \u00xx (lowercase hex), and
;; everything else (ASCII and multi-byte UTF-8 alike) copied as it is.
;;
;; Source of lib/protocol/json-escape-module.ts (`node scripts/build-json-escape.mjs` assembles it
;; with wabt); json-escape.ts owns the memory layout and the calls. Sixteen bytes are checked at a
;; time (SIMD): a block with nothing to escape is stored whole, otherwise it is stored too, the
;; output advances to the first byte that needs escaping and that byte is escaped. The output must
;; therefore have 16 bytes of slack past the longest escaped text (6 bytes an input byte).
(module
  (memory (export "memory") 1)
  ;; Bytes 0-31: the letter of a control character's short escape, 0 where it has none.
  (data (i32.const 8) "btn\00fr")
  ;; Bytes 32-47: hex digits for \u00xx.
  (data (i32.const 32) "0123456789abcdef")

  ;; Writes the escape of byte $c at $dst; returns where the output continues.
  (func $escapeByte (param $c i32) (param $dst i32) (result i32)
    (local $letter i32)
    (i32.store8 (local.get $dst) (i32.const 0x5c))
    ;; A quote or a backslash: itself behind the backslash.
    (if (i32.ge_u (local.get $c) (i32.const 0x20))
      (then
        (i32.store8 offset=1 (local.get $dst) (local.get $c))
        (return (i32.add (local.get $dst) (i32.const 2)))))
    (local.set $letter (i32.load8_u (local.get $c)))
    (if (local.get $letter)
      (then
        (i32.store8 offset=1 (local.get $dst) (local.get $letter))
        (return (i32.add (local.get $dst) (i32.const 2)))))
    ;; "u000" as one little-endian word, then the two hex digits over the last 0 and after it.
    (i32.store offset=1 (local.get $dst) (i32.const 0x30303075))
    (i32.store8 offset=4 (local.get $dst)
      (i32.load8_u offset=32 (i32.shr_u (local.get $c) (i32.const 4))))
    (i32.store8 offset=5 (local.get $dst)
      (i32.load8_u offset=32 (i32.and (local.get $c) (i32.const 15))))
    (i32.add (local.get $dst) (i32.const 6)))

  ;; Escapes $len bytes at $src into $dst; returns the end of the output.
  (func (export "escape") (param $src i32) (param $len i32) (param $dst i32) (result i32)
    (local $end i32) (local $block v128) (local $mask i32) (local $c i32)
    (local.set $end (i32.add (local.get $src) (local.get $len)))
    (block $blocksDone
      (loop $blocks
        (br_if $blocksDone (i32.gt_u (i32.add (local.get $src) (i32.const 16)) (local.get $end)))
        (local.set $block (v128.load (local.get $src)))
        (v128.store (local.get $dst) (local.get $block))
        ;; One bit a byte: below 0x20 (unsigned, so UTF-8's high bytes pass), a quote, a backslash.
        (local.set $mask (i8x16.bitmask (v128.or (v128.or
          (i8x16.lt_u (local.get $block) (i8x16.splat (i32.const 0x20)))
          (i8x16.eq (local.get $block) (i8x16.splat (i32.const 0x22))))
          (i8x16.eq (local.get $block) (i8x16.splat (i32.const 0x5c))))))
        (if (i32.eqz (local.get $mask))
          (then
            (local.set $src (i32.add (local.get $src) (i32.const 16)))
            (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
            (br $blocks)))
        ;; The bytes before the first one to escape are already stored.
        (local.set $c (i32.ctz (local.get $mask)))
        (local.set $src (i32.add (local.get $src) (local.get $c)))
        (local.set $dst (call $escapeByte
          (i32.load8_u (local.get $src))
          (i32.add (local.get $dst) (local.get $c))))
        (local.set $src (i32.add (local.get $src) (i32.const 1)))
        (br $blocks)))
    ;; The last 0-15 bytes, one at a time.
    (block $tailDone
      (loop $tail
        (br_if $tailDone (i32.ge_u (local.get $src) (local.get $end)))
        (local.set $c (i32.load8_u (local.get $src)))
        (if (i32.or
              (i32.lt_u (local.get $c) (i32.const 0x20))
              (i32.or (i32.eq (local.get $c) (i32.const 0x22)) (i32.eq (local.get $c) (i32.const 0x5c))))
          (then (local.set $dst (call $escapeByte (local.get $c) (local.get $dst))))
          (else
            (i32.store8 (local.get $dst) (local.get $c))
            (local.set $dst (i32.add (local.get $dst) (i32.const 1)))))
        (local.set $src (i32.add (local.get $src) (i32.const 1)))
        (br $tail)))
    (local.get $dst))
)
