// A grey morning sea: bleeding rain clouds, a dark headland on the right with a
// pale cliff face, a long swell in three blues and a few gulls.
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

function draw() {
  translate(-width / 2, -height / 2);
  background(247, 246, 242);
  randomSeed(223);
  noiseSeed(223);
  brush.noStroke();

  wash("#c9d0d6", 170, 0.55, 0.6, 0.7);
  blob(260, 90, 330, 110, 0.5, 1);
  wash("#9ea9b5", 140, 0.55, 0.6, 0.7);
  blob(150, 150, 200, 50, 0.6, 2);
  blob(470, 70, 160, 45, 0.6, 3);
  wash("#f1e6d2", 110, 0.5, 0.6, 0.7);
  blob(300, 230, 300, 30, 0.4, 4);
  // the headland and its cliff
  wash("#4d5a55", 210, 0.3, 0.5, 0.6);
  poly([[620, 300], [620, 190], [560, 180], [500, 205], [455, 250], [430, 300]], 0.7);
  wash("#d8cbb4", 160, 0.3, 0.5, 0.6);
  poly([[455, 300], [470, 252], [505, 236], [500, 300]], 0.5);
  // the sea, layered from the horizon down
  const blues = ["#9fb4c2", "#7d98ab", "#5d7b92"];
  for (let i = 0; i < 3; i++) {
    wash(blues[i], 170 + i * 10, 0.45, 0.6, 0.7);
    poly([[-20, 300 + i * 95], [620, 300 + i * 90], [620, 620], [-20, 620]], 0.6);
  }
  for (let k = 0; k < 5; k++) {
    wash("#f3f4f1", 170, 0.3, 0.4, 0.5);
    blob(100 + k * 95 + random(-20, 20), 350 + k * 45, random(50, 90), 5, 0.5, k + 10);
  }
  // gulls: small dark chevrons
  for (let k = 0; k < 3; k++) {
    const x = 150 + k * 60;
    const y = 180 - k * 18;
    wash("#3f4548", 210, 0.05, 0.3, 0.4);
    poly([[x - 12, y], [x, y + 5], [x + 12, y], [x, y + 2]], 0.4);
  }
}
