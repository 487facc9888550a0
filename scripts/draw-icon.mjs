// Draws images/icon.png (128x128): a white padlock on a rounded red square. Shapes are tested per
// subpixel (4x4 supersampling for smooth edges) and written as an RGBA PNG with node's zlib only.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const SIZE = 128;
const RED = [179, 38, 30];
const WHITE = [255, 255, 255];

const roundRect = (x, y, x0, y0, x1, y1, r) => {
  const dx = Math.max(x0 + r - x, 0, x - (x1 - r));
  const dy = Math.max(y0 + r - y, 0, y - (y1 - r));
  return x >= x0 && x <= x1 && y >= y0 && y <= y1 && dx * dx + dy * dy <= r * r;
};
// The shackle: a half ring above the body, with straight legs down into it.
const shackle = (x, y) => {
  const d = Math.hypot(x - 64, y - 50);
  const ring = y <= 50 && d >= 20 && d <= 31;
  const legs = y > 50 && y < 62 && ((x >= 33 && x <= 44) || (x >= 84 && x <= 95));
  return ring || legs;
};
const keyhole = (x, y) => Math.hypot(x - 64, y - 78) <= 8 || (x >= 60 && x <= 68 && y >= 80 && y <= 95);

function color(x, y) {
  if (!roundRect(x, y, 4, 4, 124, 124, 22)) return undefined;
  if (roundRect(x, y, 24, 58, 104, 110, 9)) return keyhole(x, y) ? RED : WHITE;
  return shackle(x, y) ? WHITE : RED;
}

const rows = [];
for (let y = 0; y < SIZE; y++) {
  const row = Buffer.alloc(1 + SIZE * 4); // filter byte 0, then RGBA
  for (let x = 0; x < SIZE; x++) {
    const sum = [0, 0, 0, 0];
    for (let sy = 0; sy < 4; sy++) {
      for (let sx = 0; sx < 4; sx++) {
        const c = color(x + (sx + 0.5) / 4, y + (sy + 0.5) / 4);
        if (!c) continue;
        for (let i = 0; i < 3; i++) sum[i] += c[i];
        sum[3] += 1;
      }
    }
    const o = 1 + x * 4;
    if (sum[3] > 0) for (let i = 0; i < 3; i++) row[o + i] = Math.round(sum[i] / sum[3]);
    row[o + 3] = Math.round((sum[3] / 16) * 255);
  }
  rows.push(row);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
};
const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0);
header.writeUInt32BE(SIZE, 4);
header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace

writeFileSync(
  new URL('../images/icon.png', import.meta.url),
  Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]),
);
