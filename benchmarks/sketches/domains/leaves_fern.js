// A fern frond arching from the lower left: paired green leaflets shrinking toward the tip.
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

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 246, 238);
  brush.noStroke();
  for (let k = 0; k < 14; k++) {
    const t = k / 13;
    const x = 100 + 400 * t;
    const y = 520 - 380 * t - 80 * sin(PI * t);
    const next = [100 + 400 * (t + 0.05), 520 - 380 * (t + 0.05) - 80 * sin(PI * (t + 0.05))];
    const along = atan2(next[1] - y, next[0] - x);
    const len = 90 * (1 - 0.75 * t);
    wash(k % 2 ? "#4f8a44" : "#6aa052", 190, 0.3, 0.5, 0.6);
    leaf(x, y, along - 1.1, len, len * 0.2);
    leaf(x, y, along + 1.1, len, len * 0.2);
    wash("#3f5e2c", 200, 0.1, 0.3, 0.4);
    brush.circle(x, y, 4);
  }
}
