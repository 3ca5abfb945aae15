// Autumn leaves drifting across the paper: seven leaves in rust, ochre and plum,
// each two washes (a pale body, a deeper half), with thin stems, on a diagonal.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

// an irregular rounded wash, radius r, wobble 0..1
function blob(x, y, rx, ry, wobble, seed) {
  brush.beginShape(0.9);
  for (let k = 0; k < 12; k++) {
    const a = k * TWO_PI / 12;
    const m = 1 + wobble * (noise(seed + k * 0.5) - 0.5);
    brush.vertex(x + rx * m * cos(a), y + ry * m * sin(a));
  }
  brush.endShape(CLOSE);
}

// a closed polygon through a list of [x, y] points
function poly(pts, curv) {
  brush.beginShape(curv);
  for (const p of pts) brush.vertex(p[0], p[1]);
  brush.endShape(CLOSE);
}

// set colour, opacity, bleed and texture in one call
function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

// a leaf: a pointed oval centred at (x, y), turned by ang, with one darker half
function leaf(x, y, ang, len, w, light, dark) {
  const tip = [x + len * cos(ang), y + len * sin(ang)];
  const base = [x - len * cos(ang), y - len * sin(ang)];
  const side = [-w * sin(ang), w * cos(ang)];
  wash(light, 215, 0.35, 0.5, 0.6);
  poly([base, [x + side[0], y + side[1]], tip, [x - side[0], y - side[1]]], 0.8);
  wash(dark, 200, 0.3, 0.5, 0.6);
  poly([base, [x + side[0] * 0.9, y + side[1] * 0.9], tip, [x, y]], 0.8);
  wash("#6b3b2a", 200, 0.05, 0.3, 0.4);
  const end = [base[0] - 30 * cos(ang), base[1] - 30 * sin(ang)];
  poly([base, [end[0] + 3, end[1]], [end[0] - 3, end[1]]], 0.2);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 245, 235);
  randomSeed(311);
  noiseSeed(311);
  brush.noStroke();
  wash("#f3d9b0", 90, 0.5, 0.6, 0.7);
  blob(320, 300, 240, 180, 0.5, 9);
  const lights = ["#f0b36a", "#e88d5a", "#f2cf7a", "#d97a6a"];
  const darks = ["#c2552e", "#a13d2c", "#c98a2e", "#7d3b4e"];
  for (let k = 0; k < 7; k++) {
    const x = 100 + k * 66 + random(-20, 20);
    const y = 470 - k * 52 + random(-30, 30);
    leaf(x, y, random(TWO_PI), random(62, 88), random(28, 38), lights[k % 4], darks[(k + 1) % 4]);
  }
}
