// A magenta hibiscus made of five flat circles around a dark circle, with a straight
// stem; tidy and even, but plain.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

// set colour, opacity, bleed and texture in one call
function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(248, 246, 243);
  brush.noStroke();
  const cx = 300, cy = 260;
  wash("#5b8c55", 200, 0.05, 0, 0);
  brush.beginShape(0);
  brush.vertex(296, 300); brush.vertex(304, 300); brush.vertex(304, 540); brush.vertex(296, 540);
  brush.endShape(CLOSE);
  for (let i = 0; i < 5; i++) {
    const a = -HALF_PI + i * TWO_PI / 5;
    wash("#d83a92", 190, 0.05, 0, 0);
    brush.circle(cx + 70 * cos(a), cy + 70 * sin(a), 62);
  }
  wash("#6e1040", 220, 0.05, 0, 0);
  brush.circle(cx, cy, 34);
}
