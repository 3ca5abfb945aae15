// A loose watercolour peach hibiscus, five ruffled petals around a deep red eye.
function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(3);
  noLoop();
}

function petal(len, wide, ruffle) {
  brush.beginShape(0.6);
  brush.vertex(0, 0);
  for (let i = 0; i <= 8; i++) {
    const t = -1 + (2 * i) / 8;
    const a = t * wide;
    const r = len * (0.92 + ruffle * sin(i * 2.3) + 0.08 * cos(t * PI));
    brush.vertex(r * cos(a), r * sin(a));
  }
  brush.endShape(true);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 246, 238);
  brush.noStroke();

  // two leaves behind the flower
  brush.fillBleed(0.35);
  brush.fillTexture(0.5, 0.4);
  brush.fill(84, 128, 70, 170);
  push();
  translate(300, 300);
  rotate(2.4);
  petal(250, 0.28, 0.02);
  rotate(1.7);
  petal(220, 0.25, 0.02);
  pop();

  // petals: a pale wash, then a warmer heart
  push();
  translate(300, 305);
  rotate(-0.3);
  for (let k = 0; k < 5; k++) {
    brush.fillBleed(0.3);
    brush.fillTexture(0.55, 0.35);
    brush.fill(248, 170, 128, 190);
    petal(200, 0.72, 0.05);
    brush.fillBleed(0.2);
    brush.fill(238, 122, 92, 150);
    petal(120, 0.5, 0.03);
    rotate(TWO_PI / 5);
  }
  pop();

  // the eye
  brush.fillBleed(0.25);
  brush.fillTexture(0.4, 0.5);
  brush.fill(168, 24, 40, 210);
  brush.circle(300, 305, 48, true);
  brush.fill(110, 12, 30, 220);
  brush.circle(300, 305, 22, true);

  // staminal column and pollen
  brush.fillBleed(0.1);
  brush.fill(220, 90, 64, 200);
  brush.beginShape(0.3);
  brush.vertex(296, 300);
  brush.vertex(352, 222);
  brush.vertex(360, 228);
  brush.vertex(304, 306);
  brush.endShape(true);
  brush.fill(244, 190, 40, 240);
  for (let i = 0; i < 6; i++) {
    brush.circle(350 + 14 * cos(i), 220 + 12 * sin(i * 1.7), 6, true);
  }
}
