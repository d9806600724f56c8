import fc from 'fast-check';
import {
  fileSplitCount,
  fileSplits,
  inputSplits,
  isSplittable,
  SPLIT_SLOP,
  splitSizeOf,
} from '../../src/core/splits';

const MB = 1024 * 1024;
const BLOCK = 128 * MB;

/** FileInputFormat's loop, step by step: the reference the closed form is held to. */
function loopSplits(length: number, splitSize: number): number[] {
  if (length === 0) return [0];
  const out: number[] = [];
  let remaining = length;
  while (remaining / splitSize > SPLIT_SLOP) {
    out.push(splitSize);
    remaining -= splitSize;
  }
  if (remaining !== 0) out.push(remaining);
  return out;
}

describe('split size', () => {
  it('is the block size by default, bounded by the min and max settings', () => {
    expect(splitSizeOf(BLOCK)).toBe(BLOCK);
    expect(splitSizeOf(BLOCK, { maxBytes: 64 * MB })).toBe(64 * MB);
    expect(splitSizeOf(BLOCK, { minBytes: 256 * MB })).toBe(256 * MB);
    // minsize wins over maxsize, as in computeSplitSize.
    expect(splitSizeOf(BLOCK, { minBytes: 256 * MB, maxBytes: 64 * MB })).toBe(256 * MB);
    // maxsize 0 is raised to the format's minimum of 1 byte.
    expect(splitSizeOf(BLOCK, { maxBytes: 0 })).toBe(1);
  });
});

describe('splits of one file', () => {
  it('cuts a 200 MB file in 128 MB blocks into 128 + 72 MB', () => {
    expect(fileSplits(200 * MB, BLOCK)).toEqual([128 * MB, 72 * MB]);
  });

  it('keeps a 129 MB file in one split (within the 1.1 slop), and cuts 141 MB in two', () => {
    expect(fileSplits(129 * MB, BLOCK)).toEqual([129 * MB]);
    // 1.1 x 128 MB = 140.8 MB: 140.8 MB exactly is still one split, a byte more is two.
    expect(fileSplitCount(Math.floor(140.8 * MB), BLOCK)).toBe(1);
    expect(fileSplits(141 * MB, BLOCK)).toEqual([128 * MB, 13 * MB]);
  });

  it('gives an empty file one empty split, as FileInputFormat does', () => {
    expect(fileSplits(0, BLOCK)).toEqual([0]);
    expect(fileSplitCount(0, BLOCK)).toBe(1);
  });

  it('gives a file of whole blocks one split per block', () => {
    expect(fileSplits(3 * BLOCK, BLOCK)).toEqual([BLOCK, BLOCK, BLOCK]);
  });

  it('leaves an unsplittable (gzip) file whole', () => {
    expect(isSplittable('/in/a.gz')).toBe(false);
    expect(isSplittable('/in/a.bz2')).toBe(true);
    expect(isSplittable('/in/a.txt')).toBe(true);
    expect(fileSplits(1000 * MB, BLOCK, false)).toEqual([1000 * MB]);
  });
});

describe('splits of a job input', () => {
  it('3 files of 200 MB, 1 MB and 0 B in 128 MB blocks: 2 + 1 + 1 = 4 maps', () => {
    const r = inputSplits([
      { path: '/in/a', length: 200 * MB, blockSize: BLOCK },
      { path: '/in/b', length: 1 * MB, blockSize: BLOCK },
      { path: '/in/c', length: 0, blockSize: BLOCK },
    ]);
    expect(r).toEqual({
      ok: true,
      splits: [128 * MB, 72 * MB, 1 * MB, 0],
      files: [
        { path: '/in/a', splitSize: BLOCK, splits: 2 },
        { path: '/in/b', splitSize: BLOCK, splits: 1 },
        { path: '/in/c', splitSize: BLOCK, splits: 1 },
      ],
    });
  });

  it('splits each file by its own block size, and by maxsize when it is smaller', () => {
    const files = [
      { path: '/in/small-blocks', length: 10 * MB, blockSize: 1 * MB },
      { path: '/in/big-blocks', length: 10 * MB, blockSize: BLOCK },
    ];
    const plain = inputSplits(files);
    expect(plain.ok && plain.splits.length).toBe(11);
    const capped = inputSplits(files, { maxBytes: 4 * MB });
    // 10 MB at 1 MB: 10 splits; 10 MB at 4 MB: 4 + 4 + 2.
    expect(capped.ok && capped.splits).toEqual([...Array<number>(10).fill(MB), 4 * MB, 4 * MB, 2 * MB]);
    const raised = inputSplits(files, { minBytes: 5 * MB });
    expect(raised.ok && raised.splits).toEqual([5 * MB, 5 * MB, 10 * MB]);
  });

  it('names a file with no block size, and counts splits before building them', () => {
    expect(inputSplits([{ path: '/in/x', length: 5, blockSize: 0 }])).toEqual({
      ok: false,
      problems: [{ path: '/in/x', message: 'has no valid block size (0)' }],
    });
    // 1 PiB in 1-byte splits would be 2^50 entries: refused by its count.
    expect(
      inputSplits([{ path: '/in/huge', length: 2 ** 50, blockSize: BLOCK }], { maxBytes: 1 }, 100_000),
    ).toEqual({ ok: false, tooMany: 2 ** 50 });
  });
});

describe('properties', () => {
  const sizes = fc.record({
    length: fc.oneof(fc.nat({ max: 10_000 }), fc.nat({ max: 2 ** 40 })),
    splitSize: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: MB, max: 2 ** 31 })),
  });

  it('the closed form gives the loop’s splits, and they add up to the file', () => {
    fc.assert(
      fc.property(
        sizes.filter(({ length, splitSize }) => length / splitSize < 5000),
        ({ length, splitSize }) => {
          const splits = fileSplits(length, splitSize);
          expect(splits).toEqual(loopSplits(length, splitSize));
          expect(splits.reduce((a, b) => a + b, 0)).toBe(length);
          expect(fileSplitCount(length, splitSize)).toBe(splits.length);
        },
      ),
    );
  });

  it('a job’s splits add up to its files, none above 1.1 x its split size', () => {
    const file = fc.record({
      path: fc.constantFrom('/in/a', '/in/b.gz', '/in/c.txt'),
      length: fc.nat({ max: 2 ** 31 }),
      blockSize: fc.constantFrom(MB, 64 * MB, BLOCK),
    });
    fc.assert(
      fc.property(
        fc.array(file, { maxLength: 8 }),
        fc.option(fc.integer({ min: 0, max: 256 * MB }), { nil: undefined }),
        fc.option(fc.integer({ min: MB, max: 512 * MB }), { nil: undefined }),
        (files, minBytes, maxBytes) => {
          const r = inputSplits(files, { minBytes, maxBytes });
          if (!r.ok) throw new Error('expected splits');
          expect(r.splits.reduce((a, b) => a + b, 0)).toBe(files.reduce((a, f) => a + f.length, 0));
          expect(r.splits).toHaveLength(r.files.reduce((a, f) => a + f.splits, 0));
          let at = 0;
          files.forEach((f, i) => {
            const own = r.splits.slice(at, at + r.files[i]!.splits);
            at += own.length;
            if (isSplittable(f.path))
              for (const s of own) expect(s).toBeLessThanOrEqual(SPLIT_SLOP * r.files[i]!.splitSize);
            else expect(own).toEqual([f.length]);
          });
        },
      ),
    );
  });
});
