// A small QR Code encoder, written for these views (ISO/IEC 18004): byte mode, error
// correction level M, versions 1 to 20 (up to 666 bytes; a Pix code is at most 512).
// qrMatrix(text) answers the modules as rows of booleans (true = dark), or null when the text
// does not fit.

// Level M blocks per version: [EC codewords per block, blocks of group 1, their data
// codewords, blocks of group 2 (one data codeword more each)].
const QR_M_BLOCKS = [null,
  [10, 1, 16, 0], [16, 1, 28, 0], [26, 1, 44, 0], [18, 2, 32, 0], [24, 2, 43, 0],
  [16, 4, 27, 0], [18, 4, 31, 0], [22, 2, 38, 2], [22, 3, 36, 2], [26, 4, 43, 1],
  [30, 1, 50, 4], [22, 6, 36, 2], [22, 8, 37, 1], [24, 4, 40, 5], [24, 5, 41, 5],
  [28, 7, 45, 3], [28, 10, 46, 1], [26, 9, 43, 4], [26, 3, 44, 11], [26, 3, 41, 13]];

// GF(256) with the QR polynomial x^8 + x^4 + x^3 + x^2 + 1.
const QR_EXP = new Array(512);
const QR_LOG = new Array(256);
(() => {
  let x = 1;
  for (let i = 0; i < 255; i++) {
    QR_EXP[i] = x;
    QR_LOG[x] = i;
    x <<= 1;
    if (x & 0x100) x ^= 0x11d;
  }
  for (let i = 255; i < 512; i++) QR_EXP[i] = QR_EXP[i - 255];
})();
const qrMul = (a, b) => (a === 0 || b === 0 ? 0 : QR_EXP[QR_LOG[a] + QR_LOG[b]]);

// The Reed-Solomon check codewords of `data`: the remainder of data·x^n by the generator
// (x − α^0)…(x − α^(n−1)).
function qrEcc(data, n) {
  let gen = [1];
  for (let i = 0; i < n; i++) {
    const next = new Array(gen.length + 1).fill(0);
    gen.forEach((c, j) => {
      next[j] ^= c;
      next[j + 1] ^= qrMul(c, QR_EXP[i]);
    });
    gen = next;
  }
  const rem = new Array(n).fill(0);
  for (const byte of data) {
    const factor = byte ^ rem.shift();
    rem.push(0);
    for (let j = 0; j < n; j++) rem[j] ^= qrMul(gen[j + 1], factor);
  }
  return rem;
}

// The codewords of `bytes` at `version`, blocks interleaved; null when they do not fit.
function qrCodewords(bytes, version) {
  const [ec, g1, d1, g2] = QR_M_BLOCKS[version];
  const capacity = g1 * d1 + g2 * (d1 + 1);
  const countBits = version < 10 ? 8 : 16;
  if (4 + countBits + bytes.length * 8 > capacity * 8) return null;
  const bits = [];
  const put = (value, len) => { for (let i = len - 1; i >= 0; i--) bits.push((value >>> i) & 1); };
  put(4, 4);
  put(bytes.length, countBits);
  bytes.forEach((b) => put(b, 8));
  put(0, Math.min(4, capacity * 8 - bits.length));
  while (bits.length % 8) bits.push(0);
  const data = [];
  for (let i = 0; i < bits.length; i += 8) data.push(parseInt(bits.slice(i, i + 8).join(""), 2));
  for (let pad = 0xec; data.length < capacity; pad ^= 0xec ^ 0x11) data.push(pad);
  const blocks = [];
  let at = 0;
  for (let b = 0; b < g1 + g2; b++) {
    const len = d1 + (b < g1 ? 0 : 1);
    const part = data.slice(at, at + len);
    at += len;
    blocks.push([part, qrEcc(part, ec)]);
  }
  const out = [];
  for (let i = 0; i <= d1; i++) blocks.forEach(([d]) => i < d.length && out.push(d[i]));
  for (let i = 0; i < ec; i++) blocks.forEach(([, e]) => out.push(e[i]));
  return out;
}

// Bits of a BCH code: `value` followed by its remainder by `poly` (degree `degree`).
function qrBch(value, poly, degree) {
  let rem = value;
  for (let i = 0; i < degree; i++) rem = (rem << 1) ^ ((rem >>> (degree - 1)) & 1 ? poly : 0);
  return (value << degree) | (rem & ((1 << degree) - 1));
}

const QR_MASKS = [
  (x, y) => (x + y) % 2 === 0, (x, y) => y % 2 === 0, (x) => x % 3 === 0,
  (x, y) => (x + y) % 3 === 0, (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
  (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0, (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
  (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

// The matrix of `version` with every function pattern, `codewords` placed under mask `mask`.
function qrBuild(version, codewords, mask) {
  const size = version * 4 + 17;
  const m = Array.from({ length: size }, () => new Array(size).fill(false));
  const fixed = Array.from({ length: size }, () => new Array(size).fill(false));
  const set = (x, y, dark) => { m[y][x] = dark; fixed[y][x] = true; };
  const finder = (cx, cy) => {
    for (let dy = -4; dy <= 4; dy++) for (let dx = -4; dx <= 4; dx++) {
      const x = cx + dx, y = cy + dy;
      if (x < 0 || y < 0 || x >= size || y >= size) continue;
      const d = Math.max(Math.abs(dx), Math.abs(dy));
      set(x, y, d !== 2 && d !== 4);
    }
  };
  finder(3, 3); finder(size - 4, 3); finder(3, size - 4);
  for (let i = 8; i < size - 8; i++) { set(6, i, i % 2 === 0); set(i, 6, i % 2 === 0); }
  if (version > 1) {
    const count = Math.floor(version / 7) + 2;
    const step = Math.ceil((version * 4 + 4) / (count * 2 - 2)) * 2;
    const at = [6];
    for (let p = size - 7; at.length < count; p -= step) at.splice(1, 0, p);
    for (const cy of at) for (const cx of at) {
      if ((cx === 6 && cy === 6) || (cx === 6 && cy === size - 7) || (cx === size - 7 && cy === 6)) continue;
      for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) {
        set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
      }
    }
  }
  // Format bits (level M = 00), both copies, and the dark module.
  const format = qrBch(mask, 0x537, 10) ^ 0x5412;
  const fbit = (i) => ((format >>> i) & 1) === 1;
  for (let i = 0; i <= 5; i++) set(8, i, fbit(i));
  set(8, 7, fbit(6)); set(8, 8, fbit(7)); set(7, 8, fbit(8));
  for (let i = 9; i < 15; i++) set(14 - i, 8, fbit(i));
  for (let i = 0; i < 8; i++) set(size - 1 - i, 8, fbit(i));
  for (let i = 8; i < 15; i++) set(8, size - 15 + i, fbit(i));
  set(8, size - 8, true);
  if (version >= 7) {
    const bits = qrBch(version, 0x1f25, 12);
    for (let i = 0; i < 18; i++) {
      const dark = ((bits >>> i) & 1) === 1;
      const a = size - 11 + (i % 3), b = Math.floor(i / 3);
      set(a, b, dark); set(b, a, dark);
    }
  }
  // Data, in the two-column zigzag from the bottom right, skipping the timing column.
  let i = 0;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    for (let vert = 0; vert < size; vert++) for (let j = 0; j < 2; j++) {
      const x = right - j;
      const y = ((right + 1) & 2) === 0 ? size - 1 - vert : vert;
      if (fixed[y][x]) continue;
      const dark = i < codewords.length * 8 && ((codewords[i >>> 3] >>> (7 - (i & 7))) & 1) === 1;
      i++;
      m[y][x] = dark !== QR_MASKS[mask](x, y);
    }
  }
  return m;
}

// The standard penalty of a matrix (runs, 2×2 blocks, finder-like runs, dark balance).
function qrPenalty(m) {
  const size = m.length;
  let score = 0;
  const lines = [];
  for (let y = 0; y < size; y++) {
    lines.push(m[y]);
    lines.push(m.map((row) => row[y]));
  }
  for (const line of lines) {
    let run = 1;
    for (let x = 1; x <= size; x++) {
      if (x < size && line[x] === line[x - 1]) run++;
      else { if (run >= 5) score += run - 2; run = 1; }
    }
    const s = line.map((d) => (d ? "1" : "0")).join("");
    score += 40 * ((s.match(/(?=10111010000|00001011101)/g) || []).length);
  }
  let dark = 0;
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) {
    if (m[y][x]) dark++;
    if (x && y && m[y][x] === m[y - 1][x] && m[y][x] === m[y][x - 1] && m[y][x] === m[y - 1][x - 1]) score += 3;
  }
  return score + 10 * Math.floor(Math.abs(dark * 20 - size * size * 10) / (size * size));
}

function qrMatrix(text) {
  const bytes = Array.from(new TextEncoder().encode(text));
  for (let version = 1; version < QR_M_BLOCKS.length; version++) {
    const codewords = qrCodewords(bytes, version);
    if (!codewords) continue;
    let best = null, bestScore = Infinity;
    for (let mask = 0; mask < 8; mask++) {
      const m = qrBuild(version, codewords, mask);
      const score = qrPenalty(m);
      if (score < bestScore) { best = m; bestScore = score; }
    }
    return best;
  }
  return null;
}

// The QR code of `text` as an SVG element (4 modules of quiet zone), or null.
function qrSvg(text) {
  const m = qrMatrix(text);
  if (!m) return null;
  const size = m.length + 8;
  let path = "";
  m.forEach((row, y) => row.forEach((dark, x) => { if (dark) path += "M" + (x + 4) + " " + (y + 4) + "h1v1h-1z"; }));
  return K.el("svg", { svg: true, viewBox: "0 0 " + size + " " + size, role: "img", "aria-label": "QR code Pix", "shape-rendering": "crispEdges" },
    K.el("rect", { svg: true, width: size, height: size, fill: "#fff" }),
    K.el("path", { svg: true, d: path, fill: "#000" }));
}
