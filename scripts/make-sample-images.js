#!/usr/bin/env node
/**
 * Draws the built-in samples' pictures (a face live capture, an enrolled
 * photo, one plate image per cropSizeName) on an HTML canvas in Chromium and
 * writes them, as base64 JPEG constants, to lib/bridge/sample-images.ts.
 *
 * Run by hand when a picture should change, and commit the result:
 *
 *   node scripts/make-sample-images.js [--out-dir <dir>]
 *
 * (--out-dir also writes each picture as a .jpg there, to look at.) The
 * build and the package need neither Chromium nor this script: the pictures
 * are in the generated module. Needs /usr/bin/chromium (or CHROMIUM=<path>)
 * and playwright-core, a dev dependency.
 *
 * The drawings are stylised; what matters is that each is a real, decodable
 * JPEG of a sensible size showing what its name says, small enough (at most
 * MAX_BYTES) to be sent in every sample.
 */
'use strict';
/* global document -- the drawings run in the page */
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'lib', 'bridge', 'sample-images.ts');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];
/** Largest picture, in bytes: every built-in sample carries them all. */
const MAX_BYTES = 12 * 1024;
/** JPEG qualities tried, best first, until the picture fits MAX_BYTES. */
const QUALITIES = [0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5];

/**
 * The pictures: a name in the module, the size, and a drawing. The drawings
 * run in the page (no closures over this file's variables), with the
 * helpers of `helpers` as their second argument.
 */
const PICTURES = [
  { group: 'face', name: 'detectionImage', what: 'live capture at Entrance Cam 3', width: 240, height: 240, draw: drawLiveFace },
  { group: 'face', name: 'defaultPhoto', what: 'enrolled photo, passport style', width: 180, height: 240, draw: drawPassportPhoto },
  { group: 'lpr', name: 'Close', what: 'the plate: California XYZ987', width: 200, height: 100, draw: drawPlateClose },
  { group: 'lpr', name: 'Medium', what: 'the plate on the bumper', width: 280, height: 160, draw: drawPlateMedium },
  { group: 'lpr', name: 'Car', what: 'the front of the blue car', width: 320, height: 240, draw: drawCarFront },
  { group: 'lpr', name: 'FullFrame', what: 'the gate lane with the car', width: 320, height: 240, draw: drawGateScene },
  { group: 'lpr', name: 'Other', what: 'infrared shot of the plate', width: 240, height: 160, draw: drawInfraredPlate },
];

// ---- drawings (run in the page) ----

/** Shared drawing helpers, defined in the page once. */
function helpers() {
  const h = {};
  h.rect = (ctx, x, y, w, hgt, fill) => {
    ctx.fillStyle = fill;
    ctx.fillRect(x, y, w, hgt);
  };
  h.round = (ctx, x, y, w, hgt, r, fill, stroke, lineWidth) => {
    ctx.beginPath();
    ctx.roundRect(x, y, w, hgt, r);
    if (fill) {
      ctx.fillStyle = fill;
      ctx.fill();
    }
    if (stroke) {
      ctx.strokeStyle = stroke;
      ctx.lineWidth = lineWidth || 1;
      ctx.stroke();
    }
  };
  h.ellipse = (ctx, x, y, rx, ry, fill) => {
    ctx.beginPath();
    ctx.ellipse(x, y, rx, ry, 0, 0, Math.PI * 2);
    ctx.fillStyle = fill;
    ctx.fill();
  };
  h.vgrad = (ctx, y0, y1, stops) => {
    const g = ctx.createLinearGradient(0, y0, 0, y1);
    stops.forEach(([at, color]) => g.addColorStop(at, color));
    return g;
  };
  /** A camera's on-screen text, top left. */
  h.osd = (ctx, text, size) => {
    ctx.font = `bold ${size}px "DejaVu Sans Mono", monospace`;
    ctx.textBaseline = 'top';
    ctx.fillStyle = 'rgba(0,0,0,0.55)';
    ctx.fillRect(4, 4, ctx.measureText(text).width + 8, size + 6);
    ctx.fillStyle = '#f4f4f4';
    ctx.fillText(text, 8, 7);
  };
  /** John Doe's head and shoulders, centred on (cx, top of head), `s` = scale; `turn` shifts the features sideways. */
  h.person = (ctx, cx, top, s, turn, lit) => {
    const skin = lit ? '#e2b48f' : '#d7a883';
    const shade = '#b98563';
    // shoulders: dark jacket, white shirt, tie
    ctx.fillStyle = '#2d3440';
    ctx.beginPath();
    ctx.moveTo(cx - 95 * s, top + 250 * s);
    ctx.quadraticCurveTo(cx - 88 * s, top + 150 * s, cx - 30 * s, top + 140 * s);
    ctx.lineTo(cx + 30 * s, top + 140 * s);
    ctx.quadraticCurveTo(cx + 88 * s, top + 150 * s, cx + 95 * s, top + 250 * s);
    ctx.closePath();
    ctx.fill();
    ctx.fillStyle = '#f2f2f0';
    ctx.beginPath();
    ctx.moveTo(cx - 24 * s, top + 140 * s);
    ctx.lineTo(cx, top + 190 * s);
    ctx.lineTo(cx + 24 * s, top + 140 * s);
    ctx.closePath();
    ctx.fill();
    ctx.fillStyle = '#7a1f2b';
    ctx.beginPath();
    ctx.moveTo(cx - 6 * s, top + 150 * s);
    ctx.lineTo(cx + 6 * s, top + 150 * s);
    ctx.lineTo(cx + 9 * s, top + 196 * s);
    ctx.lineTo(cx, top + 206 * s);
    ctx.lineTo(cx - 9 * s, top + 196 * s);
    ctx.closePath();
    ctx.fill();
    // neck
    h.rect(ctx, cx - 17 * s, top + 105 * s, 34 * s, 40 * s, shade);
    // ears
    h.ellipse(ctx, cx - 45 * s + turn * 0.4, top + 70 * s, 8 * s, 14 * s, shade);
    h.ellipse(ctx, cx + 45 * s + turn * 0.4, top + 70 * s, 8 * s, 14 * s, shade);
    // face
    h.ellipse(ctx, cx + turn * 0.3, top + 65 * s, 44 * s, 56 * s, skin);
    // hair: short, brown, parted
    ctx.fillStyle = '#4a3322';
    ctx.beginPath();
    ctx.ellipse(cx + turn * 0.3, top + 40 * s, 47 * s, 36 * s, 0, Math.PI * 1.02, Math.PI * 1.98);
    ctx.quadraticCurveTo(cx + 30 * s + turn * 0.3, top + 22 * s, cx - 10 * s + turn * 0.3, top + 28 * s);
    ctx.quadraticCurveTo(cx - 38 * s, top + 30 * s, cx - 46 * s + turn * 0.3, top + 50 * s);
    ctx.closePath();
    ctx.fill();
    // brows, eyes, nose, mouth
    const fx = cx + turn;
    ctx.strokeStyle = '#3b2818';
    ctx.lineWidth = 3 * s;
    ctx.lineCap = 'round';
    for (const dx of [-17, 17]) {
      ctx.beginPath();
      ctx.moveTo(fx + (dx - 9) * s, top + 50 * s);
      ctx.quadraticCurveTo(fx + dx * s, top + 46 * s, fx + (dx + 9) * s, top + 50 * s);
      ctx.stroke();
      h.ellipse(ctx, fx + dx * s, top + 60 * s, 7 * s, 4 * s, '#fbfbf8');
      h.ellipse(ctx, fx + dx * s, top + 60 * s, 3.4 * s, 3.4 * s, '#3c5a78');
    }
    ctx.strokeStyle = shade;
    ctx.lineWidth = 2.5 * s;
    ctx.beginPath();
    ctx.moveTo(fx + 1 * s, top + 62 * s);
    ctx.lineTo(fx + 5 * s, top + 84 * s);
    ctx.lineTo(fx - 4 * s, top + 86 * s);
    ctx.stroke();
    ctx.strokeStyle = '#9c4f46';
    ctx.lineWidth = 3 * s;
    ctx.beginPath();
    ctx.moveTo(fx - 13 * s, top + 98 * s);
    ctx.quadraticCurveTo(fx, top + 104 * s, fx + 13 * s, top + 98 * s);
    ctx.stroke();
  };
  /** The California plate XYZ987 in a w×h box at (x, y); `ir` draws it as an infrared camera sees it. */
  h.plate = (ctx, x, y, w, hgt, ir) => {
    const k = w / 200;
    h.round(ctx, x, y, w, hgt, 6 * k, ir ? '#f4f4f4' : '#fbfbf7', ir ? '#9a9a9a' : '#6d7480', 2 * k);
    ctx.textAlign = 'center';
    ctx.textBaseline = 'alphabetic';
    ctx.fillStyle = ir ? '#8a8a8a' : '#c8202e';
    ctx.font = `italic bold ${24 * k}px "Liberation Serif", "DejaVu Serif", serif`;
    ctx.fillText('California', x + w / 2, y + 26 * k);
    ctx.fillStyle = ir ? '#111111' : '#1b2a6b';
    ctx.font = `bold ${50 * k}px "Liberation Sans Narrow", "Liberation Sans", "DejaVu Sans", sans-serif`;
    ctx.fillText('XYZ987', x + w / 2, y + 78 * k);
    ctx.fillStyle = ir ? '#7a7a7a' : '#1b2a6b';
    ctx.font = `bold ${10 * k}px "Liberation Sans", "DejaVu Sans", sans-serif`;
    ctx.fillText('DMV.CA.GOV', x + w / 2, y + 93 * k);
    // registration stickers, top corners
    if (!ir) {
      h.rect(ctx, x + 10 * k, y + 8 * k, 22 * k, 13 * k, '#e9c21b');
      h.rect(ctx, x + w - 32 * k, y + 8 * k, 22 * k, 13 * k, '#2f8f4e');
    }
    // mounting screws
    for (const sx of [0.25, 0.75]) h.ellipse(ctx, x + w * sx, y + 9 * k, 2.5 * k, 2.5 * k, ir ? '#777' : '#9aa0a6');
    ctx.textAlign = 'left';
  };
  /** The blue Toyota Camry from the front, centred at cx, its bumper's bottom at `bottom`, `s` = scale (1: 260 px wide). */
  h.car = (ctx, cx, bottom, s) => {
    const w = 260 * s;
    const left = cx - w / 2;
    const body = '#1f4fa3';
    const dark = '#163a7a';
    // wheels (below the body)
    h.round(ctx, left + 14 * s, bottom - 34 * s, 40 * s, 36 * s, 6 * s, '#111418');
    h.round(ctx, left + w - 54 * s, bottom - 34 * s, 40 * s, 36 * s, 6 * s, '#111418');
    // roof and windscreen
    ctx.fillStyle = dark;
    ctx.beginPath();
    ctx.moveTo(left + 48 * s, bottom - 120 * s);
    ctx.lineTo(left + 72 * s, bottom - 178 * s);
    ctx.lineTo(left + w - 72 * s, bottom - 178 * s);
    ctx.lineTo(left + w - 48 * s, bottom - 120 * s);
    ctx.closePath();
    ctx.fill();
    ctx.fillStyle = h.vgrad(ctx, bottom - 172 * s, bottom - 124 * s, [
      [0, '#9fb8d4'],
      [1, '#3d5570'],
    ]);
    ctx.beginPath();
    ctx.moveTo(left + 58 * s, bottom - 124 * s);
    ctx.lineTo(left + 78 * s, bottom - 171 * s);
    ctx.lineTo(left + w - 78 * s, bottom - 171 * s);
    ctx.lineTo(left + w - 58 * s, bottom - 124 * s);
    ctx.closePath();
    ctx.fill();
    // mirrors
    h.round(ctx, left + 18 * s, bottom - 136 * s, 30 * s, 16 * s, 5 * s, body);
    h.round(ctx, left + w - 48 * s, bottom - 136 * s, 30 * s, 16 * s, 5 * s, body);
    // hood and body
    ctx.fillStyle = body;
    ctx.beginPath();
    ctx.moveTo(left + 40 * s, bottom - 122 * s);
    ctx.lineTo(left + w - 40 * s, bottom - 122 * s);
    ctx.quadraticCurveTo(left + w, bottom - 108 * s, left + w, bottom - 80 * s);
    ctx.lineTo(left + w, bottom - 22 * s);
    ctx.lineTo(left, bottom - 22 * s);
    ctx.lineTo(left, bottom - 80 * s);
    ctx.quadraticCurveTo(left, bottom - 108 * s, left + 40 * s, bottom - 122 * s);
    ctx.closePath();
    ctx.fill();
    // hood crease highlight
    ctx.fillStyle = 'rgba(255,255,255,0.12)';
    ctx.fillRect(left + 30 * s, bottom - 118 * s, w - 60 * s, 16 * s);
    // headlights
    for (const side of [-1, 1]) {
      const hx = side < 0 ? left + 14 * s : left + w - 74 * s;
      h.round(ctx, hx, bottom - 98 * s, 60 * s, 20 * s, 8 * s, '#dfe7ee', '#0e1a33', 2 * s);
      h.ellipse(ctx, hx + (side < 0 ? 18 : 42) * s, bottom - 88 * s, 7 * s, 6 * s, '#fff8d8');
    }
    // grille and badge
    h.round(ctx, cx - 60 * s, bottom - 96 * s, 120 * s, 24 * s, 6 * s, '#1b1e24');
    ctx.strokeStyle = '#3a3f48';
    ctx.lineWidth = 2 * s;
    for (let i = 1; i < 4; i++) {
      ctx.beginPath();
      ctx.moveTo(cx - 56 * s, bottom - 96 * s + i * 6 * s);
      ctx.lineTo(cx + 56 * s, bottom - 96 * s + i * 6 * s);
      ctx.stroke();
    }
    h.ellipse(ctx, cx, bottom - 84 * s, 9 * s, 6 * s, '#c9ced6');
    h.ellipse(ctx, cx, bottom - 84 * s, 5 * s, 3.4 * s, '#1b1e24');
    // bumper: painted, a black lower intake, the plate
    h.round(ctx, left + 6 * s, bottom - 66 * s, w - 12 * s, 46 * s, 10 * s, '#1c4a99');
    h.round(ctx, left + 30 * s, bottom - 30 * s, w - 60 * s, 12 * s, 4 * s, '#15171b');
    h.plate(ctx, cx - 40 * s, bottom - 62 * s, 80 * s, 40 * s);
  };
  return h;
}

function drawLiveFace(ctx, h, w, hgt) {
  // entrance lobby: warm wall, a glass door behind, ceiling light from above left
  ctx.fillStyle = h.vgrad(ctx, 0, hgt, [
    [0, '#cfc6b6'],
    [1, '#9d937f'],
  ]);
  ctx.fillRect(0, 0, w, hgt);
  h.rect(ctx, 150, 0, 80, 240, '#7e8a92');
  h.rect(ctx, 158, 8, 64, 232, '#a9bcc8');
  h.rect(ctx, 186, 8, 4, 232, '#7e8a92');
  const light = ctx.createRadialGradient(50, 20, 10, 50, 20, 200);
  light.addColorStop(0, 'rgba(255,250,235,0.55)');
  light.addColorStop(1, 'rgba(255,250,235,0)');
  ctx.fillStyle = light;
  ctx.fillRect(0, 0, w, hgt);
  // John Doe, walking in, looking a little to the side
  h.person(ctx, 116, 34, 0.95, 6, true);
  h.osd(ctx, 'ENTRANCE CAM 3', 11);
}

function drawPassportPhoto(ctx, h, w, hgt) {
  // plain, evenly lit background, head centred, looking straight ahead
  ctx.fillStyle = h.vgrad(ctx, 0, hgt, [
    [0, '#e9eef3'],
    [1, '#d3dbe3'],
  ]);
  ctx.fillRect(0, 0, w, hgt);
  h.person(ctx, 90, 36, 0.86, 0, false);
  // the photo's thin white border
  ctx.strokeStyle = '#ffffff';
  ctx.lineWidth = 6;
  ctx.strokeRect(0, 0, w, hgt);
}

function drawPlateClose(ctx, h, w, hgt) {
  h.rect(ctx, 0, 0, w, hgt, '#1d4b9b');
  h.plate(ctx, 4, 3, w - 8, hgt - 6);
}

function drawPlateMedium(ctx, h, w, hgt) {
  // the car's painted bumper, the grille above, the black lower intake below
  ctx.fillStyle = h.vgrad(ctx, 0, hgt, [
    [0, '#1a428a'],
    [0.5, '#2358b3'],
    [1, '#173d80'],
  ]);
  ctx.fillRect(0, 0, w, hgt);
  h.round(ctx, 20, -10, w - 40, 34, 8, '#1b1e24');
  ctx.strokeStyle = '#3a3f48';
  ctx.lineWidth = 3;
  for (const y of [4, 12]) {
    ctx.beginPath();
    ctx.moveTo(26, y);
    ctx.lineTo(w - 26, y);
    ctx.stroke();
  }
  h.round(ctx, 10, 132, w - 20, 40, 8, '#15171b');
  // a plate frame around the plate
  h.round(ctx, 64, 34, 152, 88, 6, '#202226');
  h.plate(ctx, 70, 38, 140, 70);
  ctx.fillStyle = '#c9ced6';
  ctx.font = 'bold 8px "Liberation Sans", sans-serif';
  ctx.textAlign = 'center';
  ctx.fillText('TOYOTA OF SACRAMENTO', 140, 117);
  ctx.textAlign = 'left';
}

function drawCarFront(ctx, h, w, hgt) {
  // the lane in front of the gate: grey wall, asphalt
  ctx.fillStyle = h.vgrad(ctx, 0, 120, [
    [0, '#b7bcc2'],
    [1, '#8f959c'],
  ]);
  ctx.fillRect(0, 0, w, 120);
  ctx.fillStyle = h.vgrad(ctx, 120, hgt, [
    [0, '#5d6166'],
    [1, '#44474b'],
  ]);
  ctx.fillRect(0, 120, w, hgt - 120);
  ctx.fillStyle = 'rgba(0,0,0,0.35)';
  ctx.beginPath();
  ctx.ellipse(160, 226, 150, 12, 0, 0, Math.PI * 2);
  ctx.fill();
  h.car(ctx, 160, 226, 1.1);
}

function drawGateScene(ctx, h, w, hgt) {
  // evening sky, the car-park building, the lane, the barrier and its booth
  ctx.fillStyle = h.vgrad(ctx, 0, 90, [
    [0, '#7f9dbf'],
    [1, '#c5d1dc'],
  ]);
  ctx.fillRect(0, 0, w, 90);
  h.rect(ctx, 0, 40, w, 60, '#8b8479');
  for (let x = 8; x < w; x += 28) h.rect(ctx, x, 50, 18, 12, '#5f6b75');
  h.rect(ctx, 0, 72, w, 6, '#6b655c');
  ctx.fillStyle = '#55595e';
  ctx.fillRect(0, 96, w, hgt - 96);
  // lane markings, in perspective
  ctx.strokeStyle = '#e6e1c8';
  ctx.lineWidth = 3;
  for (const [x0, x1] of [
    [60, -40],
    [260, 360],
  ]) {
    ctx.beginPath();
    ctx.moveTo(x0, 100);
    ctx.lineTo(x1, hgt);
    ctx.stroke();
  }
  h.rect(ctx, 60, 160, 200, 6, '#e6e1c8');
  // booth on the right, barrier arm across the lane
  h.rect(ctx, 250, 70, 56, 80, '#d9d4c7');
  h.rect(ctx, 258, 82, 40, 26, '#7d97ab');
  h.rect(ctx, 246, 64, 64, 8, '#a5342c');
  h.rect(ctx, 238, 112, 14, 44, '#f2c230');
  for (let i = 0; i < 9; i++) h.rect(ctx, 46 + i * 22, 116, 22, 8, i % 2 ? '#f4f4f4' : '#d3232c');
  // the car, waiting at the barrier
  h.car(ctx, 150, 200, 0.52);
  h.osd(ctx, 'GATE 2 LPR', 11);
}

function drawInfraredPlate(ctx, h, w, hgt) {
  // an infrared camera at night: dark car, the retro-reflective plate glows
  ctx.fillStyle = h.vgrad(ctx, 0, hgt, [
    [0, '#2a2a2a'],
    [1, '#151515'],
  ]);
  ctx.fillRect(0, 0, w, hgt);
  h.round(ctx, 10, 110, w - 20, 36, 8, '#0c0c0c');
  h.round(ctx, 8, 8, 56, 20, 8, '#d8d8d8');
  h.round(ctx, w - 64, 8, 56, 20, 8, '#d8d8d8');
  const glow = ctx.createRadialGradient(120, 74, 20, 120, 74, 120);
  glow.addColorStop(0, 'rgba(255,255,255,0.18)');
  glow.addColorStop(1, 'rgba(255,255,255,0)');
  ctx.fillStyle = glow;
  ctx.fillRect(0, 0, w, hgt);
  h.plate(ctx, 50, 40, 140, 70, true);
  h.osd(ctx, 'IR', 10);
}

// ---- the module written ----

/** The JPEG without Chromium's ICC profile (an APP2 `ICC_PROFILE` segment of
 *  about 650 bytes, plain sRGB: what a viewer assumes without one). */
function withoutIccProfile(jpeg) {
  const kept = [jpeg.subarray(0, 2)]; // SOI
  let at = 2;
  // marker segments up to the start of scan; the rest is copied as is
  while (at + 4 <= jpeg.length && jpeg[at] === 0xff && jpeg[at + 1] !== 0xda) {
    const end = at + 2 + jpeg.readUInt16BE(at + 2);
    const icc = jpeg[at + 1] === 0xe2 && jpeg.toString('latin1', at + 4, at + 15) === 'ICC_PROFILE';
    if (!icc) kept.push(jpeg.subarray(at, end));
    at = end;
  }
  kept.push(jpeg.subarray(at));
  return Buffer.concat(kept);
}

function moduleText(pictures) {
  const line = (p) => `  /** ${p.what}: ${p.width}×${p.height}, ${p.bytes} bytes (quality ${p.quality}). */\n  ${p.name}: '${p.base64}',`;
  return `/**
 * GENERATED by scripts/make-sample-images.js: do not edit. To change a
 * picture, edit its drawing there and run \`node scripts/make-sample-images.js\`
 * (needs Chromium), then commit this file.
 *
 * The pictures of the built-in samples (lib/bridge/sample.ts, images:
 * 'pictures'): small real JPEGs, stylised drawings of the sample's content
 * (John Doe; the blue Toyota with the California plate XYZ987), so that image
 * flows can be built before a camera exists. Base64, as events carry them.
 */
import type { CropSizeName } from '../core/event-kinds';

/** The face sample's live capture (\`detectionImage\`) and enrolled photo (\`defaultPhoto\`). */
export const SAMPLE_FACE_PICTURES: Readonly<{ detectionImage: string; defaultPhoto: string }> = {
${pictures
  .filter((p) => p.group === 'face')
  .map(line)
  .join('\n')}
};

/** The plate sample's images, one per \`cropSizeName\`. */
export const SAMPLE_PLATE_PICTURES: Readonly<Record<CropSizeName, string>> = {
${pictures
  .filter((p) => p.group === 'lpr')
  .map(line)
  .join('\n')}
};
`;
}

async function main() {
  const args = process.argv.slice(2);
  const outDirAt = args.indexOf('--out-dir');
  const outDir = outDirAt >= 0 ? path.resolve(args[outDirAt + 1]) : undefined;
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium is not at ${CHROMIUM}: install it or set CHROMIUM=<path>`);
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    await page.setContent('<!doctype html><html><body></body></html>');
    const made = [];
    for (const p of PICTURES) {
      const result = await page.evaluate(
        async ({ helpersSource, drawSource, width, height, qualities, maxBytes }) => {
          await document.fonts.ready;
          const h = new Function(`${helpersSource}; return helpers();`)();
          const draw = new Function(`return (${drawSource});`)();
          const canvas = document.createElement('canvas');
          canvas.width = width;
          canvas.height = height;
          const ctx = canvas.getContext('2d');
          draw(ctx, h, width, height);
          let last;
          for (const quality of qualities) {
            const url = canvas.toDataURL('image/jpeg', quality);
            const base64 = url.slice(url.indexOf(',') + 1);
            last = { base64, quality, bytes: atob(base64).length };
            if (last.bytes <= maxBytes) break;
          }
          return last;
        },
        {
          helpersSource: helpers.toString(),
          drawSource: p.draw.toString(),
          width: p.width,
          height: p.height,
          qualities: QUALITIES,
          maxBytes: MAX_BYTES,
        },
      );
      const jpeg = withoutIccProfile(Buffer.from(result.base64, 'base64'));
      result.base64 = jpeg.toString('base64');
      result.bytes = jpeg.length;
      if (result.bytes > MAX_BYTES) throw new Error(`${p.name} is ${result.bytes} bytes even at quality ${result.quality}: simplify its drawing`);
      made.push({ ...p, ...result });
      console.log(`${p.group} ${p.name}: ${p.width}×${p.height}, ${result.bytes} bytes at quality ${result.quality}`);
      if (outDir) {
        fs.mkdirSync(outDir, { recursive: true });
        fs.writeFileSync(path.join(outDir, `${p.group}-${p.name}.jpg`), Buffer.from(result.base64, 'base64'));
      }
    }
    fs.writeFileSync(OUT, moduleText(made));
    // the house style, so that `npm run lint` passes on the generated file
    execFileSync(process.execPath, [require.resolve('prettier/bin/prettier.cjs'), '--write', OUT], { cwd: ROOT, stdio: 'inherit' });
    console.log(`wrote ${path.relative(ROOT, OUT)}`);
  } finally {
    await browser.close();
  }
}

main().catch((err) => {
  console.error(`make-sample-images: ${err.message}`);
  process.exit(1);
});
