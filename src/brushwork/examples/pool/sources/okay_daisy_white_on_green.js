// A white daisy on a flat green ground: twelve identical white petals around a
// yellow disc, one wash each.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

// a plain, symmetric petal: a stiff six-point lozenge from (cx, cy) along ang
function flatpetal(cx, cy, ang, len, wid) {
  const pts = [[0, 0], [0.3 * len, -0.45 * wid], [0.85 * len, -0.5 * wid], [len, 0], [0.85 * len, 0.5 * wid], [0.3 * len, 0.45 * wid]];
  brush.beginShape(0.3);
  for (const p of pts) {
    brush.vertex(cx + p[0] * cos(ang) - p[1] * sin(ang), cy + p[0] * sin(ang) + p[1] * cos(ang));
  }
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
  background(196, 214, 190);
  brush.noStroke();
  for (let i = 0; i < 12; i++) {
    wash("#ffffff", 255, 0.05, 0, 0);
    flatpetal(300, 300, i * TWO_PI / 12, 150, 40);
  }
  wash("#f0c020", 230, 0.05, 0, 0);
  brush.circle(300, 300, 40);
}
