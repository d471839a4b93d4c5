;; Decodes the content of a JSON string literal that holds escapes, 16 bytes
;; at a time (wasm SIMD): blocks without a backslash or control byte are
;; stored as they are, each escape is written as its UTF-8 bytes. Anything
;; JSON.parse must judge (a raw control byte, a malformed escape, a lone
;; surrogate) returns -1, so the caller leaves that string to JSON.parse.
;;
;; Compiled by scripts/build-wasm.js into lib/http/unescape-wasm.ts (test
;; test/unit/http/unescape-wasm.test.js checks that file is this source's
;; compilation).
;;
;; Memory: bytes 0..255 map an escape character X of `\X` to the byte it
;; stands for (0: no such escape), bytes 256..511 a byte to its value as a
;; hex digit (a table: branches on each digit cost more than the rest of an
;; escape). The caller puts the literal at `in` and
;; leaves room for the output at `out`: the decoded bytes are never more than
;; the literal's, and 16 bytes past the end of both may be read or written
;; (the last block is loaded whole, its bytes past the end ignored).
(module
  (memory (export "memory") 1)
  ;; After a successful decode: bit 0 set when the literal holds a raw byte
  ;; >= 0x80 (the caller checks it is UTF-8), bit 1 when an escape was written
  ;; as more than one byte (decode the output as UTF-8, not Latin-1).
  (global $flags (export "flags") (mut i32) (i32.const 0))

  (data (i32.const 0x22) "\22") ;; \"
  (data (i32.const 0x2f) "\2f") ;; \/
  (data (i32.const 0x5c) "\5c") ;; \\
  (data (i32.const 0x62) "\08") ;; \b
  (data (i32.const 0x66) "\0c") ;; \f
  (data (i32.const 0x6e) "\0a") ;; \n
  (data (i32.const 0x72) "\0d") ;; \r
  (data (i32.const 0x74) "\09") ;; \t
  ;; Bytes 256..511: the value of each byte as a hex digit, 0xf0 for any
  ;; other byte (so an OR of several is above 15 when one is not a digit).
  (data (i32.const 256) "\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\00\01\02\03\04\05\06\07\08\09\f0\f0\f0\f0\f0\f0\f0\0a\0b\0c\0d\0e\0f\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\0a\0b\0c\0d\0e\0f\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0\f0")

  ;; The code unit of the four hex digits at $p; -1 if they are not four hex digits.
  (func $hex4 (param $p i32) (result i32)
    (local $a i32) (local $b i32) (local $c i32) (local $d i32)
    (local.set $a (i32.load8_u offset=256 (i32.load8_u (local.get $p))))
    (local.set $b (i32.load8_u offset=256 (i32.load8_u offset=1 (local.get $p))))
    (local.set $c (i32.load8_u offset=256 (i32.load8_u offset=2 (local.get $p))))
    (local.set $d (i32.load8_u offset=256 (i32.load8_u offset=3 (local.get $p))))
    (if (result i32)
      (i32.gt_u (i32.or (i32.or (local.get $a) (local.get $b)) (i32.or (local.get $c) (local.get $d))) (i32.const 15))
      (then (i32.const -1))
      (else
        (i32.or
          (i32.or (i32.shl (local.get $a) (i32.const 12)) (i32.shl (local.get $b) (i32.const 8)))
          (i32.or (i32.shl (local.get $c) (i32.const 4)) (local.get $d))))))

  ;; Decodes the literal content at [$in, $in + $n) to $out; returns the
  ;; number of bytes written, or -1 for what JSON.parse must judge.
  (func (export "decode") (param $in i32) (param $n i32) (param $out i32) (result i32)
    (local $i i32) (local $j i32) (local $end i32) (local $rem i32)
    (local $v v128) (local $hit v128) (local $highs v128) (local $mask i32) (local $high i32)
    (local $multi i32) (local $e i32) (local $code i32) (local $low i32)
    (local.set $i (local.get $in))
    (local.set $j (local.get $out))
    (local.set $end (i32.add (local.get $in) (local.get $n)))
    (block $fail
      (block $done
        (loop $scan
          (local.set $rem (i32.sub (local.get $end) (local.get $i)))
          (if (i32.ge_s (local.get $rem) (i32.const 16))
            (then
              ;; Whole blocks: stored as they are until one holds a backslash or control byte.
              (loop $blocks
                (local.set $v (v128.load align=1 (local.get $i)))
                (v128.store align=1 (local.get $j) (local.get $v))
                (local.set $highs (v128.or (local.get $highs) (local.get $v)))
                (local.set $hit
                  (v128.or
                    (i8x16.eq (local.get $v) (v128.const i8x16 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c))
                    (i8x16.lt_u (local.get $v) (v128.const i8x16 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20))))
                (if (i32.eqz (v128.any_true (local.get $hit)))
                  (then
                    (local.set $i (i32.add (local.get $i) (i32.const 16)))
                    (local.set $j (i32.add (local.get $j) (i32.const 16)))
                    (br_if $blocks (i32.le_u (i32.add (local.get $i) (i32.const 16)) (local.get $end)))
                    (br $scan))))
              (local.set $mask (i8x16.bitmask (local.get $hit))))
            (else
              (br_if $done (i32.le_s (local.get $rem) (i32.const 0)))
              ;; The last bytes: a whole block is loaded and stored, its bytes past the end ignored.
              (local.set $v (v128.load align=1 (local.get $i)))
              (v128.store align=1 (local.get $j) (local.get $v))
              (local.set $mask (i32.sub (i32.shl (i32.const 1) (local.get $rem)) (i32.const 1)))
              (local.set $high (i32.or (local.get $high) (i32.and (i8x16.bitmask (local.get $v)) (local.get $mask))))
              (local.set $mask
                (i32.and (local.get $mask)
                  (i8x16.bitmask
                    (v128.or
                      (i8x16.eq (local.get $v) (v128.const i8x16 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c))
                      (i8x16.lt_u (local.get $v) (v128.const i8x16 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20))))))
              (if (i32.eqz (local.get $mask))
                (then
                  (local.set $j (i32.add (local.get $j) (local.get $rem)))
                  (br $done)))))
          ;; The bytes before the first backslash or control byte are stored already.
          (local.set $mask (i32.ctz (local.get $mask)))
          (local.set $i (i32.add (local.get $i) (local.get $mask)))
          (local.set $j (i32.add (local.get $j) (local.get $mask)))
          ;; \u00XX below 0x80 first, as most escapes are (System.Text.Json's
          ;; `\u002B` in every base64 image): one compare for its first four bytes.
          (if (i32.eq (i32.load (local.get $i)) (i32.const 0x3030755c)) ;; "\u00"
            (then
              (br_if $fail (i32.gt_u (i32.add (local.get $i) (i32.const 6)) (local.get $end)))
              (local.set $code (i32.load8_u offset=256 (i32.load8_u offset=4 (local.get $i))))
              (local.set $low (i32.load8_u offset=256 (i32.load8_u offset=5 (local.get $i))))
              (br_if $fail (i32.gt_u (i32.or (local.get $code) (local.get $low)) (i32.const 15)))
              (local.set $code (i32.or (i32.shl (local.get $code) (i32.const 4)) (local.get $low)))
              (if (i32.lt_u (local.get $code) (i32.const 0x80))
                (then
                  (i32.store8 (local.get $j) (local.get $code))
                  (local.set $i (i32.add (local.get $i) (i32.const 6)))
                  (local.set $j (i32.add (local.get $j) (i32.const 1)))
                  (br $scan)))))
          ;; A control byte: JSON.parse rejects it.
          (br_if $fail (i32.ne (i32.load8_u (local.get $i)) (i32.const 0x5c)))
          (br_if $fail (i32.gt_u (i32.add (local.get $i) (i32.const 2)) (local.get $end)))
          (local.set $e (i32.load8_u offset=1 (local.get $i)))
          (if (i32.ne (local.get $e) (i32.const 0x75)) ;; not \u: a two-character escape
            (then
              (local.set $e (i32.load8_u (local.get $e)))
              (br_if $fail (i32.eqz (local.get $e)))
              (i32.store8 (local.get $j) (local.get $e))
              (local.set $i (i32.add (local.get $i) (i32.const 2)))
              (local.set $j (i32.add (local.get $j) (i32.const 1)))
              (br $scan)))
          (br_if $fail (i32.gt_u (i32.add (local.get $i) (i32.const 6)) (local.get $end)))
          (if (i32.eq (i32.load16_u offset=2 (local.get $i)) (i32.const 0x3030)) ;; \u00XX, as most are
            (then
              (local.set $code (i32.load8_u offset=256 (i32.load8_u offset=4 (local.get $i))))
              (local.set $low (i32.load8_u offset=256 (i32.load8_u offset=5 (local.get $i))))
              (br_if $fail (i32.gt_u (i32.or (local.get $code) (local.get $low)) (i32.const 15)))
              (local.set $code (i32.or (i32.shl (local.get $code) (i32.const 4)) (local.get $low))))
            (else
              (local.set $code (call $hex4 (i32.add (local.get $i) (i32.const 2))))
              (br_if $fail (i32.lt_s (local.get $code) (i32.const 0)))))
          (local.set $i (i32.add (local.get $i) (i32.const 6)))
          (if (i32.lt_u (local.get $code) (i32.const 0x80))
            (then
              (i32.store8 (local.get $j) (local.get $code))
              (local.set $j (i32.add (local.get $j) (i32.const 1)))
              (br $scan)))
          (local.set $multi (i32.const 1))
          (if (i32.lt_u (local.get $code) (i32.const 0x800))
            (then
              (i32.store8 (local.get $j) (i32.or (i32.const 0xc0) (i32.shr_u (local.get $code) (i32.const 6))))
              (i32.store8 offset=1 (local.get $j) (i32.or (i32.const 0x80) (i32.and (local.get $code) (i32.const 0x3f))))
              (local.set $j (i32.add (local.get $j) (i32.const 2)))
              (br $scan)))
          (if (i32.ne (i32.and (local.get $code) (i32.const 0xf800)) (i32.const 0xd800))
            (then
              (i32.store8 (local.get $j) (i32.or (i32.const 0xe0) (i32.shr_u (local.get $code) (i32.const 12))))
              (i32.store8 offset=1 (local.get $j) (i32.or (i32.const 0x80) (i32.and (i32.shr_u (local.get $code) (i32.const 6)) (i32.const 0x3f))))
              (i32.store8 offset=2 (local.get $j) (i32.or (i32.const 0x80) (i32.and (local.get $code) (i32.const 0x3f))))
              (local.set $j (i32.add (local.get $j) (i32.const 3)))
              (br $scan)))
          ;; A surrogate: only a high one followed by an escaped low one is a character.
          (br_if $fail (i32.ge_u (local.get $code) (i32.const 0xdc00)))
          (br_if $fail (i32.gt_u (i32.add (local.get $i) (i32.const 6)) (local.get $end)))
          (br_if $fail (i32.ne (i32.load16_u (local.get $i)) (i32.const 0x755c))) ;; "\u"
          (local.set $low (call $hex4 (i32.add (local.get $i) (i32.const 2))))
          (br_if $fail (i32.ne (i32.and (local.get $low) (i32.const -1024)) (i32.const 0xdc00)))
          (local.set $i (i32.add (local.get $i) (i32.const 6)))
          (local.set $code
            (i32.add (i32.const 0x10000)
              (i32.or (i32.shl (i32.sub (local.get $code) (i32.const 0xd800)) (i32.const 10))
                (i32.sub (local.get $low) (i32.const 0xdc00)))))
          (i32.store8 (local.get $j) (i32.or (i32.const 0xf0) (i32.shr_u (local.get $code) (i32.const 18))))
          (i32.store8 offset=1 (local.get $j) (i32.or (i32.const 0x80) (i32.and (i32.shr_u (local.get $code) (i32.const 12)) (i32.const 0x3f))))
          (i32.store8 offset=2 (local.get $j) (i32.or (i32.const 0x80) (i32.and (i32.shr_u (local.get $code) (i32.const 6)) (i32.const 0x3f))))
          (i32.store8 offset=3 (local.get $j) (i32.or (i32.const 0x80) (i32.and (local.get $code) (i32.const 0x3f))))
          (local.set $j (i32.add (local.get $j) (i32.const 4)))
          (br $scan)))
      (global.set $flags
        (i32.or
          (i32.or (i32.ne (local.get $high) (i32.const 0)) (i32.ne (i8x16.bitmask (local.get $highs)) (i32.const 0)))
          (i32.shl (local.get $multi) (i32.const 1))))
      (return (i32.sub (local.get $j) (local.get $out))))
    (i32.const -1))
)
