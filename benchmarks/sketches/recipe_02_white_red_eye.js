// White hibiscus with a crimson eye: five broad overlapping petals, thin pink veins of colour.
function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(2.5);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background(196, 212, 190);
  brush.noStroke();
  const cx = 300;
  const cy = 300;

  // a soft grey-green shadow behind the white petals so they read on paper
  brush.fillBleed(0.45);
  brush.fillTexture(0.3, 0.2);
  brush.fill(120, 150, 116, 150);
  brush.circle(cx + 12, cy + 14, 150, true);

  for (let k = 0; k < 5; k++) {
    const a = -HALF_PI + (k * TWO_PI) / 5;
    brush.fillBleed(0.25);
    brush.fillTexture(0.6, 0.55);
    brush.fill(255, 255, 255, 255);
    brush.beginShape(0.7);
    brush.vertex(cx, cy);
    for (let i = 0; i <= 10; i++) {
      const t = -0.68 + (1.36 * i) / 10;
      const r = 205 + 14 * sin(i * 3.1 + k);
      brush.vertex(cx + r * cos(a + t), cy + r * sin(a + t));
    }
    brush.endShape(true);
    // a blush running from the eye into each petal
    brush.fillBleed(0.4);
    brush.fillTexture(0.4, 0.3);
    brush.fill(222, 90, 110, 70);
    brush.beginShape(0.5);
    brush.vertex(cx, cy);
    brush.vertex(cx + 120 * cos(a - 0.3), cy + 120 * sin(a - 0.3));
    brush.vertex(cx + 150 * cos(a + 0.02), cy + 150 * sin(a + 0.02));
    brush.vertex(cx + 115 * cos(a + 0.32), cy + 115 * sin(a + 0.32));
    brush.endShape(true);
  }

  // the red eye, two layers
  brush.fillBleed(0.3);
  brush.fillTexture(0.5, 0.6);
  brush.fill(188, 18, 42, 220);
  brush.circle(cx, cy, 62, true);
  brush.fillBleed(0.15);
  brush.fill(120, 6, 28, 230);
  brush.circle(cx, cy, 28, true);

  // column and anthers, leaning up and right
  brush.fillBleed(0.1);
  brush.fill(236, 214, 206, 220);
  brush.beginShape(0.2);
  brush.vertex(cx - 4, cy);
  brush.vertex(cx + 58, cy - 92);
  brush.vertex(cx + 66, cy - 86);
  brush.vertex(cx + 4, cy + 4);
  brush.endShape(true);
  brush.fill(230, 170, 40, 240);
  for (let i = 0; i < 7; i++) {
    brush.circle(cx + 62 + 16 * cos(i * 0.9), cy - 96 + 10 * sin(i * 1.3), 5, true);
  }
}
