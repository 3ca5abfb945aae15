// A lavender hibiscus (rose of Sharon) with a red eye and pale veined petals.
function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(3);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background(247, 246, 243);
  brush.noStroke();
  const cx = 300, cy = 300;
  for (let k = 0; k < 5; k++) {
    const a = 0.9 + (k * TWO_PI) / 5;
    brush.fillBleed(0.3);
    brush.fillTexture(0.5, 0.5);
    brush.fill(184, 160, 222, 190);
    brush.beginShape(0.75);
    brush.vertex(cx, cy);
    for (let i = 0; i <= 8; i++) {
      const t = -0.7 + (1.4 * i) / 8;
      const r = 190 + 12 * cos(i * 2.6);
      brush.vertex(cx + r * cos(a + t), cy + r * sin(a + t));
    }
    brush.endShape(true);
  }
  // a red star of colour bleeding out from the eye
  for (let k = 0; k < 5; k++) {
    const a = 0.9 + (k * TWO_PI) / 5;
    brush.fillBleed(0.35);
    brush.fillTexture(0.4, 0.3);
    brush.fill(190, 30, 70, 170);
    brush.beginShape(0.4);
    brush.vertex(cx + 20 * cos(a - 1.1), cy + 20 * sin(a - 1.1));
    brush.vertex(cx + 75 * cos(a), cy + 75 * sin(a));
    brush.vertex(cx + 20 * cos(a + 1.1), cy + 20 * sin(a + 1.1));
    brush.endShape(true);
  }
  brush.fillBleed(0.2);
  brush.fill(150, 10, 50, 220);
  brush.circle(cx, cy, 28, true);
  brush.fillBleed(0.05);
  brush.fill(248, 244, 236, 240);
  brush.beginShape(0.1);
  brush.vertex(cx - 3, cy);
  brush.vertex(cx - 5, cy - 80);
  brush.vertex(cx + 5, cy - 80);
  brush.vertex(cx + 3, cy);
  brush.endShape(true);
  brush.fill(250, 236, 180, 240);
  for (let i = 0; i < 7; i++) {
    brush.circle(cx + 10 * cos(i * 0.9), cy - 84 + 8 * sin(i * 0.9), 5, true);
  }
}
