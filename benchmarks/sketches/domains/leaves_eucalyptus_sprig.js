// A eucalyptus sprig: round blue-grey leaves in pairs along a curving rosy stem.
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
  for (let k = 0; k < 10; k++) {
    const t = k / 9;
    const x = 140 + 330 * t;
    const y = 520 - 420 * t + 60 * sin(PI * t);
    wash("#8a5a64", 190, 0.1, 0.3, 0.4);
    brush.circle(x, y, 5);
    const r = 48 - 24 * t;
    wash(k % 2 ? "#9db7b0" : "#86a6a2", 180, 0.35, 0.5, 0.6);
    brush.circle(x - r * 0.9, y - r * 0.2, r);
    wash(k % 2 ? "#7f9f9c" : "#a9c1b7", 170, 0.35, 0.5, 0.6);
    brush.circle(x + r * 0.8, y + r * 0.3, r * 0.9);
  }
}
