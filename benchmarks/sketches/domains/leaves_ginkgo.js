// Ginkgo leaves: five golden-green fans tumbling on a diagonal, each with a thin stem.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function leaf(x, y, ang, len, wide) {
  brush.beginShape(0.8);
  brush.vertex(x, y);
  brush.vertex(x + len * 0.5 * cos(ang) - wide * sin(ang), y + len * 0.5 * sin(ang) + wide * cos(ang));
  brush.vertex(x + len * cos(ang), y + len * sin(ang));
  brush.vertex(x + len * 0.5 * cos(ang) + wide * sin(ang), y + len * 0.5 * sin(ang) - wide * cos(ang));
  brush.endShape(CLOSE);
}

function fan(x, y, r, ang, col) {
  wash(col, 190, 0.3, 0.5, 0.6);
  brush.beginShape(0.6);
  brush.vertex(x, y);
  for (let k = 0; k <= 8; k++) {
    const a = ang - 0.9 + k * 1.8 / 8;
    const m = k === 4 ? 0.8 : 1;
    brush.vertex(x + r * m * cos(a), y + r * m * sin(a));
  }
  brush.endShape(CLOSE);
  wash("#7a6a34", 200, 0.05, 0.3, 0.4);
  leaf(x, y, ang + PI, r * 0.7, 2);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 246, 238);
  brush.noStroke();
  const cols = ["#d8c24a", "#bfc85a", "#e3b23c", "#c9d068", "#d9a83a"];
  for (let k = 0; k < 5; k++) fan(140 + k * 85, 460 - k * 80, 90 - k * 6, -HALF_PI + k * 0.5, cols[k]);
}
